#pragma once
// The result model every check produces (docs/report-schema.md). Plain data: the
// stack throws typed errors, probes turn live state into Findings, and the
// emitters in this folder render them. Nothing here does I/O.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hn::reports {

enum class Status { kPass, kWarn, kFail, kSkip, kError };

// L1 model & data ... L7 physical; the report walks the stack top to bottom.
enum class Layer { kL1 = 1, kL2, kL3, kL4, kL5, kL6, kL7 };

std::string_view to_string(Status s);
std::string_view to_string(Layer l);
std::string_view layer_title(Layer l);
// Throws std::invalid_argument naming the text when it is not a known value.
Status status_from_string(std::string_view s);
Layer layer_from_string(std::string_view s);

struct Metric {
  double value = 0;
  std::string unit;
  bool operator==(const Metric&) const = default;
};

struct Finding {
  std::string code;  // stable id from the catalog, e.g. NODE-NIC-MISSING
  Layer layer = Layer::kL7;
  Status status = Status::kPass;
  std::string entity;       // what it is about: a node, NIC, mount, rank pair, operator
  std::string message;      // what was seen, with the values
  std::string remediation;  // the next step a person takes
  std::map<std::string, std::string> evidence;  // what was read, from where
  std::map<std::string, Metric> metrics;
  double duration_ms = 0;  // time the producing probe took
  // The host it is about, in a cluster report (certify); "" for a node's own
  // report. The entity still names the host for readers of one line.
  std::string host;

  bool operator==(const Finding&) const = default;
};

// A whole run: what produced the findings and when. `extra` carries
// command-specific tables (bench rows) as already-serialised JSON text so that
// this module stays free of any one command's schema.
struct Report {
  std::string tool_version;
  std::string command;
  std::string hostname;
  std::string profile;
  std::int64_t started_unix_ms = 0;
  std::int64_t finished_unix_ms = 0;
  std::vector<Finding> findings;
  std::map<std::string, std::string> extra_json;
};

struct Summary {
  int pass = 0, warn = 0, fail = 0, skip = 0, error = 0;
  int total() const { return pass + warn + fail + skip + error; }
};
Summary summarize(const std::vector<Finding>& findings);

// Exit code policy shared by every command (2, bad input, is decided before
// findings exist): any FAIL gives 1, else any ERROR gives 3 (the tool could not
// run a check), else WARN gives 1 only under --strict, else 0.
int exit_code_for(const std::vector<Finding>& findings, bool strict);

// 0 for ERROR, then FAIL, WARN, PASS, SKIP: lower is worse.
int severity_rank(Status s);

// Findings sorted for presentation: by layer L1..L7, then by host (cluster-wide
// findings, host "", first; then hosts in natural order: host2 before host10),
// then worst status first. Stable, so the probes' own order (which groups an
// entity's checks) breaks ties.
std::vector<Finding> sorted_for_report(std::vector<Finding> findings);

}  // namespace hn::reports
