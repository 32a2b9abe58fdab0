#pragma once
// Compares new runs with a baseline: every figure, every check and every
// node's state, each with an outcome. Pure: the baseline, the runs and the
// rules in, a Comparison out; gate/findings.h turns it into findings.
//
// Nothing is skipped silently: a baseline figure, check or snapshot that the
// new runs lack is an outcome of its own (missing), a figure with no known
// direction is "unjudged", a producer that says a figure cannot be better or
// worse makes it "informational", and anything new in the runs is "new".

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gate/baseline.h"
#include "gate/drift.h"
#include "gate/rules.h"
#include "gate/run.h"
#include "gate/stats.h"

namespace hn::gate {

enum class MetricState {
  kJudged,           // judge() ran: see judgement->outcome
  kMissing,          // in the baseline, in no new run (or only as null)
  kNew,              // in a new run, not in the baseline
  kInformational,    // better = none: shown, never judged
  kUnjudged,         // no direction known (the producer, the figures table, the rules)
  kMismatch,         // unit or direction differ between baseline, runs and rules
  kNoBaselineValue,  // the baseline has the figure only as null
  kIgnored,          // a rule says ignore = true
};
std::string_view to_string(MetricState s);

struct MetricResult {
  reports::Measurement measurement;  // identity, unit, better as judged, phase
  std::string identity;
  reports::Layer layer = reports::Layer::kL3;
  MetricState state = MetricState::kJudged;
  std::optional<Spread> baseline;  // summary of the baseline values
  std::vector<double> baseline_values;
  std::vector<double> values;  // finite values of the new runs
  std::optional<Judgement> judgement;
  Thresholds thresholds;
  std::string rule = "defaults";                            // origin of the rule that applied
  reports::Status missing_status = reports::Status::kFail;  // for kMissing
  std::string detail;  // kMismatch: what differs; kUnjudged: why
};

enum class CheckChange {
  kStillPassing,  // PASS then, PASS now
  kFixed,         // WARN/FAIL then, PASS now
  kNewPassing,    // not judged then (absent, SKIP, ERROR), PASS now
  kRegressed,     // PASS then, WARN/FAIL now; or WARN then, FAIL now
  kNewFailing,    // not judged then, WARN/FAIL now
  kStillFailing,  // WARN/FAIL then, the same or better but not PASS now
  kMissing,       // judged then, not now (absent, SKIP or ERROR)
  kNotChecked,    // judged neither then nor now
  kIgnored,       // a rule says ignore = true
};
std::string_view to_string(CheckChange c);

struct CheckResult {
  std::string host, code, entity;
  reports::Layer layer = reports::Layer::kL7;
  std::optional<reports::Status> before, now;  // combined_status() of each side
  CheckChange change = CheckChange::kStillPassing;
  std::string message;  // the newest run's message for the check ("" when absent)
  std::string rule = "defaults";
  reports::Status missing_status = reports::Status::kFail;
};

struct DriftResult {
  std::string host;
  Drift drift;
};

enum class HostDrift { kCompared, kMissing, kNoBaseline };
struct HostResult {
  std::string host;
  HostDrift state = HostDrift::kCompared;
  int significant = 0, review = 0, none = 0;
  std::vector<std::string> none_fields;  // distinct fields filed as none, for the message
  reports::Status missing_status = reports::Status::kFail;
};

// Whether a new run measured on the machine(s) the baseline did.
enum class MachineState {
  kSame,        // every known field matches the baseline's runs on that host
  kDiffers,     // the same host with another CPU, kernel or NICs
  kOtherHost,   // a host the baseline has no run from
  kUnknown,     // the run or the baseline recorded no identity
  kMixedBase,   // the baseline's own runs disagree about the machine
};
struct MachineResult {
  std::string source;  // the new run ("" for kMixedBase)
  std::string host;
  MachineState state = MachineState::kSame;
  std::string detail;  // what differs, or which hosts the baseline has
};

struct Comparison {
  int family = 0;  // figures judged together: the false-alarm rate is shared among them
  // Rules of the rules file that matched nothing: a typo in a name or label
  // would otherwise leave a rule that silently does nothing.
  std::vector<std::string> unused_rules;  // "rules.toml:12 [[metric]] name = ..."
  std::vector<MachineResult> machines;
  std::vector<MetricResult> metrics;  // baseline identities, then new ones
  std::vector<CheckResult> checks;
  std::vector<DriftResult> drift;  // significant and review differences only
  std::vector<HostResult> hosts;
};

// Throws compat::InputError when a stored snapshot cannot be read back, and
// when the inputs are not comparable at all: a bench run of another op,
// rank count, transport, dtype, algorithm or set of sizes than the
// baseline's bench runs, or runs that share no figure, check or host with
// the baseline (each names the run and what differs).
Comparison compare(const Baseline& baseline, const std::vector<Run>& runs, const Rules& rules);

}  // namespace hn::gate
