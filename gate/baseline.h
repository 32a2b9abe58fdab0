#pragma once
// A baseline: what a healthy cluster looked like over one or more runs. Each
// figure keeps every value with the run it came from, and its centre and
// spread (gate/stats.h) are derived from those values; each check keeps its
// status in every run; each host keeps one reference snapshot. Plain data and
// pure functions; the JSON form is gate/baseline_json.h
// (docs/baseline-schema.md).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gate/run.h"
#include "gate/stats.h"
#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::gate {

struct BaselineMetric {
  reports::Measurement measurement;  // identity, unit, direction, phase; its value is unused
  bool stated = true;                // false: no direction was known when it was built
  reports::Layer layer = reports::Layer::kL3;
  std::vector<double> values;  // finite values, in run order
  std::vector<int> runs;       // the run index of each value
  std::vector<int> null_runs;  // runs that had the figure without a finite value

  // Median and spread of the values; nullopt when there is none.
  std::optional<Spread> summary() const;
};

struct BaselineCheck {
  std::string host, code, entity;
  reports::Layer layer = reports::Layer::kL7;
  std::vector<std::pair<int, reports::Status>> statuses;  // (run index, status)
};

struct BaselineState {
  NodeState state;
  int run = 0;  // the run it came from: the last snapshot of that host
};

struct Baseline {
  std::string id;       // a UUID, CTRF's baseline reportId
  std::string created;  // ISO-8601 UTC
  std::string tool_version;
  std::vector<RunInfo> runs;
  std::vector<BaselineMetric> metrics;  // by identity
  std::vector<BaselineCheck> checks;    // by host, code, entity
  std::vector<BaselineState> states;    // by host
};

// The status that speaks for several: the worst verdict (FAIL > WARN > PASS)
// when any status is a verdict, else ERROR if any, else SKIP. nullopt for none.
std::optional<reports::Status> combined_status(const std::vector<reports::Status>& statuses);

// Builds a baseline from runs, in the order given. Throws compat::InputError
// (naming the run's source) when runs is empty, when one file is given twice
// (same sha256: its values would count twice and shrink the spread), when a
// run has one figure identity twice, or when two runs disagree on a figure's
// unit or stated direction.
Baseline build_baseline(const std::vector<Run>& runs, std::string id, std::string created,
                        std::string tool_version);

}  // namespace hn::gate
