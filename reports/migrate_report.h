#pragma once
// The migration report of `hnprecheck migrate`: for one job, a verdict on each
// of the six concerns (operators, comm parameters, storage access, network
// policy, scheduling, observability), the findings behind each verdict, and
// the ordered list of changes, blocking ones first. Plain data plus its
// renderers; the findings themselves stay in Report::findings (so JSON,
// JUnit, CTRF and Prometheus work unchanged) and a concern refers to them by
// index. The JSON form (extra.migration) is described in
// docs/migrate-report.md.
//
// Renderers never fail on content: text is made printable, Markdown cells
// and HTML are escaped. They throw std::out_of_range only for a concern that
// refers to a finding the report does not have (a bug in the caller).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reports/finding.h"
#include "reports/text_report.h"

namespace hn::reports {

inline constexpr int kMigrationSchemaVersion = 1;

// Ordered from best to worst: a concern takes the worst of its findings.
// kNotChecked: nothing to change was found, but a check of the concern could
// not run (a SKIP), so "ready" would promise more than was looked at.
enum class Verdict { kReady, kNotChecked, kNeedsChanges, kBlocked };
// "ready", "not fully checked", "needs changes", "blocked"
std::string_view to_string(Verdict v);
// "ready", "not_checked", "needs_changes", "blocked" (JSON)
std::string_view verdict_key(Verdict v);

struct MigrationConcern {
  std::string key;    // operators, comm, storage, network, scheduling, observability
  std::string title;  // "Operators", "Comm parameters", ...
  Verdict verdict = Verdict::kReady;
  std::string summary;                // one line for the verdict table
  std::vector<std::size_t> findings;  // indices into Report::findings, in order
};

struct MigrationChange {
  Verdict severity = Verdict::kNeedsChanges;  // kBlocked: the job cannot run until done
  std::string concern;                        // a concern key
  std::string code;                           // the finding it resolves
  std::string entity;                         // what it is about (the finding's entity)
  std::string what;                           // the step, imperative
  std::string where;                          // file:line it applies to, or ""
};

// A value the analysis used (or set aside), with where it came from.
struct MigrationInput {
  std::string name;  // "tp", "checkpoint", "profile", ...
  std::string value;
  std::string where;   // "job.toml:12", "train.sbatch:40", "--model", "derived"
  std::string origin;  // "manifest", "launch", "command line", "derived", "default"
  bool used = true;    // false: overridden by a value from a stronger origin
};

struct MigrationArtifact {
  std::string kind;  // "env", "script"
  std::string path;
  std::string status;  // "written", or why not
};

// The operator classes of one model: how many of its nodes (or calls) each
// class covers, for the coverage chart.
struct OperatorShare {
  std::string file;
  std::int64_t total = 0;
  std::map<std::string, std::int64_t> by_class;  // op_check class name -> occurrences
};

struct Migration {
  std::string job;
  std::string target;                      // "supernode-a: backend example-npu, hccl"
  std::vector<MigrationConcern> concerns;  // always the six, in order
  std::vector<MigrationChange> changes;    // blocking first, then concern order
  std::vector<MigrationInput> inputs;
  std::vector<MigrationArtifact> artifacts;
  std::vector<OperatorShare> operators;
};

// The file:line a change applies to, or "" when its text already names it.
std::string change_place(const MigrationChange& c);

// What the change list says when it is empty: that the job can move as it
// is, or, when a concern was not fully checked, that nothing was found and
// which concerns still need a look ("none found; not fully checked: ...").
std::string no_changes_text(const Migration& m);

// 0 when no concern needs changes or is blocked and (with strict) every
// concern was fully checked; 1 otherwise.
int migration_exit_code(const Migration& m, bool strict = false);

// extra_json["migration"].
std::string migration_json(const Migration& m);

// A concern's findings, worst first (stable: the concern's own order breaks
// ties); only WARN, FAIL and ERROR with only_problems.
std::vector<Finding> concern_findings(const Report& report, const MigrationConcern& c,
                                      bool only_problems);

// The terminal report: the six verdicts, the ordered changes, the inputs with
// where each came from, then each concern with its findings (worst first;
// only problems with options.only_problems), and the summary line.
std::string render_migration_text(const Report& report, const Migration& m,
                                  const TextOptions& options);
std::string render_migration_markdown(const Report& report, const Migration& m);
// One self-contained page (inline CSS and SVG, no script): verdicts per
// concern and operator coverage as charts, each series in its own colour with
// a legend entry, then the changes, inputs and findings.
std::string render_migration_html(const Report& report, const Migration& m);

}  // namespace hn::reports
