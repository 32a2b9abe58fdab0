#include "gate/baseline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compat/input_error.h"

namespace hn::gate {

namespace {

using reports::Status;

[[noreturn]] void bad(const RunInfo& run, const std::string& field, const std::string& what) {
  throw compat::InputError(run.source, 0, 0, field, what);
}

bool is_verdict(Status s) {
  return s == Status::kPass || s == Status::kWarn || s == Status::kFail;
}

int verdict_rank(Status s) {
  return s == Status::kFail ? 2 : s == Status::kWarn ? 1 : 0;
}

void add_figure(BaselineMetric& m, const Figure& f, const RunInfo& run, int index,
                const std::string& id) {
  const auto& in = f.measurement;
  if (in.unit != m.measurement.unit)
    bad(run, id,
        "unit '" + in.unit + "' differs from '" + m.measurement.unit + "' in " +
            std::string("an earlier run of the baseline"));
  if (f.stated && m.stated && in.better != m.measurement.better)
    bad(run, id,
        "direction '" + std::string(reports::to_string(in.better)) + "' differs from '" +
            std::string(reports::to_string(m.measurement.better)) +
            "' in an earlier run of the baseline");
  if (f.stated && !m.stated) {
    m.stated = true;
    m.measurement.better = in.better;
  }
  if (std::isfinite(in.value)) {
    m.values.push_back(in.value);
    m.runs.push_back(index);
  } else {
    m.null_runs.push_back(index);
  }
}

}  // namespace

std::optional<Spread> BaselineMetric::summary() const {
  if (values.empty()) return std::nullopt;
  return summarize(values);
}

std::optional<Status> combined_status(const std::vector<Status>& statuses) {
  std::optional<Status> verdict, other;
  for (Status s : statuses) {
    if (is_verdict(s)) {
      if (!verdict || verdict_rank(s) > verdict_rank(*verdict)) verdict = s;
    } else if (!other || s == Status::kError) {
      other = s;
    }
  }
  return verdict ? verdict : other;
}

Baseline build_baseline(const std::vector<Run>& runs, std::string id, std::string created,
                        std::string tool_version) {
  if (runs.empty())
    throw compat::InputError("command line", 0, 0, "", "a baseline needs at least one run");
  Baseline b;
  b.id = std::move(id);
  b.created = std::move(created);
  b.tool_version = std::move(tool_version);

  std::map<std::string, std::size_t> seen_files;
  std::map<std::string, BaselineMetric> metrics;
  std::map<std::string, BaselineCheck> checks;
  std::map<std::string, BaselineState> states;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const int index = static_cast<int>(i);
    if (auto [it, fresh] = seen_files.emplace(run.info.sha256, i); !fresh)
      bad(run.info, "",
          "is the same file as " + runs[it->second].info.source +
              " (same sha256): a run counted twice would shrink the spread");
    b.runs.push_back(run.info);

    std::set<std::string> in_run;
    for (const Figure& f : run.figures) {
      const std::string key = reports::identity(f.measurement);
      if (!in_run.insert(key).second) bad(run.info, key, "this figure appears twice in one run");
      auto it = metrics.find(key);
      if (it == metrics.end()) {
        BaselineMetric m;
        m.measurement = f.measurement;
        m.measurement.value = 0;
        m.stated = f.stated;
        m.layer = f.layer;
        it = metrics.emplace(key, std::move(m)).first;
      }
      add_figure(it->second, f, run.info, index, key);
    }

    std::map<std::string, std::vector<Status>> run_checks;
    for (const Check& c : run.checks) {
      const std::string key = check_key(c);
      auto it = checks.find(key);
      if (it == checks.end())
        it = checks.emplace(key, BaselineCheck{c.host, c.code, c.entity, c.layer, {}}).first;
      run_checks[key].push_back(c.status);
    }
    // One status per run and check: a run that judged one check twice counts once.
    for (const auto& [key, statuses] : run_checks)
      checks[key].statuses.emplace_back(index, *combined_status(statuses));

    if (run.state) states[run.state->host] = BaselineState{*run.state, index};
  }
  if (metrics.empty() && checks.empty() && states.empty())
    throw compat::InputError(runs.front().info.source, 0, 0, "",
                             "the runs hold no figure, check or snapshot: a baseline of them "
                             "could not judge anything");
  for (auto& [k, m] : metrics) b.metrics.push_back(std::move(m));
  for (auto& [k, c] : checks) b.checks.push_back(std::move(c));
  for (auto& [k, s] : states) b.states.push_back(std::move(s));
  return b;
}

}  // namespace hn::gate
