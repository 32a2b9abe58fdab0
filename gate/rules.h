#pragma once
// The gate's rules: the thresholds of the statistics (gate/stats.h), what a
// missing figure, check or snapshot costs, and per-metric or per-check
// overrides. Read from a TOML file (`gate --rules FILE`), documented in
// docs/gate-rules.md; without a file every default applies. Strict: unknown
// keys, wrong types and out-of-range values are compat::InputError naming
// file:line and the key. Overrides are matched in file order and the first
// match wins.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gate/drift.h"
#include "gate/run.h"
#include "gate/stats.h"
#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::gate {

struct MetricRule {
  std::string origin;                         // "rules.toml:12"
  std::string name = "*";                     // glob on the figure name
  std::map<std::string, std::string> labels;  // globs; each listed label must match
  std::optional<double> false_alarm, k, min_change, min_abs, fallback_change, detect;
  std::optional<int> min_runs;
  std::optional<bool> beyond_range;
  std::optional<reports::Better> better;  // for figures whose producer states none
  std::optional<reports::Status> missing;
  bool ignore = false;  // shown, never judged
};

struct CheckRule {
  std::string origin;
  std::string code = "*", entity = "*", host = "*";  // globs
  std::optional<reports::Status> missing;
  bool ignore = false;
};

struct Rules {
  std::string source = "defaults";  // the file, or "defaults"
  Thresholds defaults;
  // What a baseline item absent from the new runs costs: kFail or kWarn.
  reports::Status metric_missing = reports::Status::kFail;
  reports::Status check_missing = reports::Status::kFail;
  reports::Status snapshot_missing = reports::Status::kFail;
  std::vector<MetricRule> metrics;
  std::vector<CheckRule> checks;
  std::vector<DriftRule> drift;  // ahead of the built-in drift table

  const MetricRule* metric_rule(const reports::Measurement& m) const;
  const CheckRule* check_rule(const Check& c) const;
  // The defaults with the rule's overrides (the defaults alone for nullptr).
  Thresholds thresholds(const MetricRule* rule) const;
};

// Throws compat::InputError (file:line, key).
Rules parse_rules(const std::string& text, const std::string& file);

}  // namespace hn::gate
