#include "gate/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "compat/input_error.h"

namespace hn::gate {

namespace {

using reports::Better;
using reports::Status;

// What the new runs say about one figure identity.
struct NewFigure {
  reports::Measurement first;
  reports::Layer layer = reports::Layer::kL3;
  std::string first_source;
  std::vector<double> values;
  bool stated = false;
  Better better = Better::kNone;
  std::string conflict;  // unit or direction disagreement between the new runs
};

std::map<std::string, NewFigure> gather_figures(const std::vector<Run>& runs) {
  std::map<std::string, NewFigure> out;
  for (const Run& run : runs) {
    std::set<std::string> in_run;
    for (const Figure& f : run.figures) {
      const auto& m = f.measurement;
      const std::string id = reports::identity(m);
      if (!in_run.insert(id).second)
        throw compat::InputError(run.info.source, 0, 0, id, "this figure appears twice in one run");
      auto [it, fresh] = out.try_emplace(id);
      NewFigure& nf = it->second;
      if (fresh) {
        nf.first = m;
        nf.layer = f.layer;
        nf.first_source = run.info.source;
      } else if (m.unit != nf.first.unit && nf.conflict.empty()) {
        nf.conflict = "unit is '" + m.unit + "' in " + run.info.source + " and '" + nf.first.unit +
                      "' in " + nf.first_source;
      }
      if (f.stated) {
        if (nf.stated && m.better != nf.better && nf.conflict.empty())
          nf.conflict = "direction is '" + std::string(reports::to_string(m.better)) + "' in " +
                        run.info.source + " and '" + std::string(reports::to_string(nf.better)) +
                        "' in an earlier new run";
        nf.stated = true;
        nf.better = m.better;
      }
      if (std::isfinite(m.value)) nf.values.push_back(m.value);
    }
  }
  return out;
}

std::string better_text(Better b) {
  return std::string(reports::to_string(b));
}

// The direction a figure is judged by: the baseline's, the new runs' and the
// rule's must agree where they are stated. Sets r.state to kMismatch (and
// returns nullopt) when they do not.
std::optional<Better> resolve_direction(MetricResult& r, const BaselineMetric* bm,
                                        const NewFigure* nf, const MetricRule* rule) {
  std::optional<Better> dir;
  std::string from;
  if (bm && bm->stated) {
    dir = bm->measurement.better;
    from = "the baseline";
  }
  if (nf && nf->stated) {
    // A producer that now shows a figure without judging it (collective.time
    // since busbw judges the transfer) against a baseline that judged it, or
    // the reverse: informational, not a mismatch that blocks the upgrade.
    if (dir && *dir != nf->better && (*dir == Better::kNone || nf->better == Better::kNone)) {
      r.detail = "direction is '" + better_text(nf->better) + "' in the new runs and '" +
                 better_text(*dir) + "' in the baseline: shown, not judged";
      return Better::kNone;
    }
    if (dir && *dir != nf->better) {
      r.state = MetricState::kMismatch;
      r.detail = "direction is '" + better_text(nf->better) + "' in the new runs and '" +
                 better_text(*dir) + "' in the baseline";
      return std::nullopt;
    }
    if (!dir) from = "the new runs";
    dir = nf->better;
  }
  if (rule && rule->better) {
    if (dir && *dir != *rule->better) {
      r.state = MetricState::kMismatch;
      r.detail = "the rule at " + rule->origin + " says better = " + better_text(*rule->better) +
                 ", " + from + " says " + better_text(*dir) +
                 "; a rule may only give a direction where the producer states none";
      return std::nullopt;
    }
    dir = rule->better;
  }
  return dir;
}

MetricResult judge_metric(const BaselineMetric* bm, const NewFigure* nf, const Rules& rules) {
  MetricResult r;
  r.measurement = bm ? bm->measurement : nf->first;
  r.measurement.value = 0;
  r.identity = reports::identity(r.measurement);
  r.layer = bm ? bm->layer : nf->layer;
  if (bm) {
    r.baseline_values = bm->values;
    r.baseline = bm->summary();
  }
  if (nf) r.values = nf->values;
  const MetricRule* rule = rules.metric_rule(r.measurement);
  if (rule) r.rule = rule->origin;
  r.thresholds = rules.thresholds(rule);
  r.missing_status = rule && rule->missing ? *rule->missing : rules.metric_missing;

  if (rule && rule->ignore) {
    r.state = MetricState::kIgnored;
    return r;
  }
  if (nf && !nf->conflict.empty()) {
    r.state = MetricState::kMismatch;
    r.detail = nf->conflict;
    return r;
  }
  if (bm && nf && nf->first.unit != bm->measurement.unit) {
    r.state = MetricState::kMismatch;
    r.detail = "unit is '" + nf->first.unit + "' in the new runs and '" + bm->measurement.unit +
               "' in the baseline";
    return r;
  }
  const std::optional<Better> dir = resolve_direction(r, bm, nf, rule);
  if (r.state == MetricState::kMismatch) return r;
  if (dir) r.measurement.better = *dir;
  if (!bm) {
    r.state = MetricState::kNew;
    return r;
  }
  if (dir && !sense_of(*dir)) {
    r.state = MetricState::kInformational;
    return r;
  }
  if (!r.baseline) {  // never measured in the baseline: nothing to miss or judge against
    r.state = MetricState::kNoBaselineValue;
    return r;
  }
  if (r.values.empty()) {
    r.state = MetricState::kMissing;
    if (nf) r.detail = "the new runs have it only as null (not measured)";
    return r;
  }
  if (!dir) {
    r.state = MetricState::kUnjudged;
    r.detail = "neither its producer, the figures table nor a rule gives a direction";
    return r;
  }
  // Judged once the whole family is known (compare()).
  r.state = MetricState::kJudged;
  return r;
}

bool judged(Status s) {
  return s == Status::kPass || s == Status::kWarn || s == Status::kFail;
}

int rank(Status s) {
  return s == Status::kFail ? 2 : s == Status::kWarn ? 1 : 0;
}

CheckChange classify_check(std::optional<Status> before, std::optional<Status> now) {
  const bool was = before && judged(*before), is = now && judged(*now);
  if (!was)
    return !is                     ? CheckChange::kNotChecked
           : *now == Status::kPass ? CheckChange::kNewPassing
                                   : CheckChange::kNewFailing;
  if (!is) return CheckChange::kMissing;
  if (*now == Status::kPass)
    return *before == Status::kPass ? CheckChange::kStillPassing : CheckChange::kFixed;
  if (*before == Status::kPass || rank(*now) > rank(*before)) return CheckChange::kRegressed;
  return CheckChange::kStillFailing;
}

std::vector<CheckResult> compare_checks(const Baseline& baseline, const std::vector<Run>& runs,
                                        const Rules& rules) {
  struct Side {
    Check check;
    std::vector<Status> before, now;
    bool in_baseline = false;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Side> all;
  for (const auto& c : baseline.checks) {
    Side& s = all[{c.host, c.code, c.entity}];
    s.check = Check{c.host, c.code, c.entity, c.layer, Status::kPass, ""};
    s.in_baseline = true;
    for (const auto& [run, st] : c.statuses) s.before.push_back(st);
  }
  for (const Run& run : runs)
    for (const Check& c : run.checks) {
      Side& s = all[{c.host, c.code, c.entity}];
      if (!s.in_baseline && s.now.empty()) s.check = c;
      s.check.message = c.message;
      s.check.layer = c.layer;
      s.now.push_back(c.status);
    }
  std::vector<CheckResult> out;
  for (const auto& [key, s] : all) {
    CheckResult r;
    r.host = s.check.host;
    r.code = s.check.code;
    r.entity = s.check.entity;
    r.layer = s.check.layer;
    r.message = s.now.empty() ? "" : s.check.message;
    r.before = combined_status(s.before);
    r.now = combined_status(s.now);
    const CheckRule* rule = rules.check_rule(s.check);
    if (rule) r.rule = rule->origin;
    r.missing_status = rule && rule->missing ? *rule->missing : rules.check_missing;
    r.change = rule && rule->ignore ? CheckChange::kIgnored : classify_check(r.before, r.now);
    out.push_back(std::move(r));
  }
  return out;
}

void compare_states(const Baseline& baseline, const std::vector<Run>& runs, const Rules& rules,
                    Comparison& out) {
  std::vector<DriftRule> table = rules.drift;
  const auto& builtin = builtin_drift_rules();
  table.insert(table.end(), builtin.begin(), builtin.end());

  std::map<std::string, std::vector<const NodeState*>> now;
  for (const Run& run : runs)
    if (run.state) now[run.state->host].push_back(&*run.state);
  for (const auto& b : baseline.states) {
    HostResult h;
    h.host = b.state.host;
    h.missing_status = rules.snapshot_missing;
    auto it = now.find(h.host);
    if (it == now.end()) {
      h.state = HostDrift::kMissing;
      out.hosts.push_back(std::move(h));
      continue;
    }
    std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
    std::set<std::string> none_fields;
    for (const NodeState* state : it->second)
      for (const Drift& d : classify(diff_states(b.state, *state), table)) {
        if (!seen.emplace(d.diff.entity, d.diff.field, d.diff.a, d.diff.b).second) continue;
        if (d.impact == Impact::kNone) {
          ++h.none;
          none_fields.insert(drift_field(d.diff));
          continue;
        }
        ++(d.impact == Impact::kSignificant ? h.significant : h.review);
        out.drift.push_back({h.host, d});
      }
    h.none_fields.assign(none_fields.begin(), none_fields.end());
    out.hosts.push_back(std::move(h));
    now.erase(it);
  }
  for (const auto& [host, states] : now) {
    HostResult h;
    h.host = host;
    h.state = HostDrift::kNoBaseline;
    out.hosts.push_back(std::move(h));
  }
}

// A bench run's setup: everything that names the measurement but its size.
std::string bench_setup(const reports::Measurement& m) {
  std::string s;
  for (const char* key : {"op", "ranks", "transport", "dtype", "redop", "algorithm"}) {
    auto it = m.labels.find(key);
    s += (s.empty() ? "" : ", ") + std::string(key) + " " + (it == m.labels.end() ? "?" : it->second);
  }
  return s;
}

// A bench run's sizes under each setup (everything but the size). A baseline
// may hold several bench commands (an allreduce and an allgather sweep): a new
// bench run must be one of them, with the same sizes.
using BenchShape = std::map<std::string, std::set<long long>>;

std::string join_sizes(const std::set<long long>& v) {
  std::string s;
  for (long long x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

template <class Figures>
BenchShape bench_shape(const Figures& figures) {
  BenchShape b;
  for (const auto& f : figures) {
    const reports::Measurement& m = f.measurement;
    if (m.name.rfind("bench.", 0) != 0) continue;
    auto& sizes = b[bench_setup(m)];
    if (auto it = m.labels.find("bytes"); it != m.labels.end()) {
      try {
        sizes.insert(std::stoll(it->second));
      } catch (const std::exception&) {
      }
    }
  }
  return b;
}

void require_comparable(const Baseline& baseline, const std::vector<Run>& runs) {
  const BenchShape base = bench_shape(baseline.metrics);
  std::string base_setups;
  for (const auto& [setup, sizes] : base) base_setups += (base_setups.empty() ? "" : "; ") + setup;
  for (const Run& run : runs) {
    if (run.info.kind != RunKind::kBench) continue;
    auto incomparable = [&](const std::string& field, const std::string& what) {
      throw compat::InputError(run.info.source, 0, 0, field,
                               what + ": not comparable with the baseline (build a baseline from "
                                      "runs of the same bench command, or bench what it did)");
    };
    if (base.empty()) incomparable("", "is a bench run and the baseline has none");
    for (const auto& [setup, sizes] : bench_shape(run.figures)) {
      auto it = base.find(setup);
      if (it == base.end())
        incomparable("op", "measures " + setup + "; the baseline measured " + base_setups);
      if (sizes != it->second) {
        std::set<long long> only_now, only_base;
        for (long long x : sizes)
          if (!it->second.count(x)) only_now.insert(x);
        for (long long x : it->second)
          if (!sizes.count(x)) only_base.insert(x);
        incomparable("rows", "has sizes (bytes) the baseline lacks [" + join_sizes(only_now) +
                                 "] and lacks sizes it has [" + join_sizes(only_base) + "]");
      }
    }
  }
  // Anything in common at all? Runs of another kind than the whole baseline
  // would otherwise be judged as "everything missing" (a regression).
  std::set<std::string> ids, keys, hosts;
  for (const auto& m : baseline.metrics) ids.insert(reports::identity(m.measurement));
  for (const auto& c : baseline.checks) keys.insert(c.host + "|" + c.code + "|" + c.entity);
  for (const auto& s : baseline.states) hosts.insert(s.state.host);
  for (const Run& run : runs) {
    bool shared = run.state && hosts.count(run.state->host);
    for (const auto& f : run.figures) shared = shared || ids.count(reports::identity(f.measurement));
    for (const auto& c : run.checks) shared = shared || keys.count(check_key(c));
    // A snapshot of a host the baseline lacks has its own outcome (SKIP).
    if (!shared && (!run.figures.empty() || !run.checks.empty()))
      throw compat::InputError(run.info.source, 0, 0, "",
                               "(" + run.info.what + ") shares no figure, check or snapshot with "
                               "the baseline: not comparable (is it the baseline of another "
                               "command or cluster?)");
  }
}

std::vector<MachineResult> compare_machines(const Baseline& baseline, const std::vector<Run>& runs) {
  std::vector<MachineResult> out;
  std::map<std::string, std::vector<Machine>> base;  // host -> distinct identities
  for (const auto& r : baseline.runs)
    for (const auto& m : r.machines) {
      auto& v = base[m.host];
      bool known = false;
      for (const auto& x : v) known = known || machine_difference(x, m).empty();
      if (!known) v.push_back(m);
    }
  for (const auto& [host, ids] : base)
    if (ids.size() > 1)
      out.push_back({"", host, MachineState::kMixedBase, machine_difference(ids[0], ids[1])});
  std::string base_hosts;
  for (const auto& [host, ids] : base) base_hosts += (base_hosts.empty() ? "" : ", ") + host;
  std::set<std::string> versions;
  for (const auto& r : baseline.runs)
    if (!r.tool_version.empty()) versions.insert(r.tool_version);
  for (const Run& run : runs) {
    // Neither side recorded one (files from before identities were kept):
    // nothing to say per run.
    if (run.info.machines.empty() && base.empty()) continue;
    if (run.info.machines.empty() || base.empty()) {
      out.push_back({run.info.source, run.info.host, MachineState::kUnknown,
                     run.info.machines.empty() ? "the run records no machine identity"
                                               : "the baseline's runs record no machine identity"});
      continue;
    }
    for (const auto& m : run.info.machines) {
      auto it = base.find(m.host);
      if (it == base.end()) {
        out.push_back({run.info.source, m.host, MachineState::kOtherHost,
                       "the baseline's runs are from " + base_hosts});
        continue;
      }
      std::string diff = machine_difference(it->second.front(), m);
      // Another release of the tool measures with other code: flagged too.
      if (!run.info.tool_version.empty() && !versions.empty() &&
          !versions.count(run.info.tool_version))
        diff += (diff.empty() ? "" : "; ") + std::string("hnprecheck ") + *versions.begin() +
                " -> " + run.info.tool_version;
      out.push_back({run.info.source, m.host,
                     diff.empty() ? MachineState::kSame : MachineState::kDiffers, diff});
    }
  }
  return out;
}

}  // namespace

std::string_view to_string(MetricState s) {
  switch (s) {
    case MetricState::kJudged:
      return "judged";
    case MetricState::kMissing:
      return "missing";
    case MetricState::kNew:
      return "new";
    case MetricState::kInformational:
      return "informational";
    case MetricState::kUnjudged:
      return "unjudged";
    case MetricState::kMismatch:
      return "mismatch";
    case MetricState::kNoBaselineValue:
      return "no-baseline-value";
    case MetricState::kIgnored:
      return "ignored";
  }
  return "judged";
}

std::string_view to_string(CheckChange c) {
  switch (c) {
    case CheckChange::kStillPassing:
      return "still-passing";
    case CheckChange::kFixed:
      return "fixed";
    case CheckChange::kNewPassing:
      return "new-passing";
    case CheckChange::kRegressed:
      return "regressed";
    case CheckChange::kNewFailing:
      return "new-failing";
    case CheckChange::kStillFailing:
      return "still-failing";
    case CheckChange::kMissing:
      return "missing";
    case CheckChange::kNotChecked:
      return "not-checked";
    case CheckChange::kIgnored:
      return "ignored";
  }
  return "still-passing";
}

Comparison compare(const Baseline& baseline, const std::vector<Run>& runs, const Rules& rules) {
  require_comparable(baseline, runs);
  Comparison out;
  out.machines = compare_machines(baseline, runs);
  std::map<std::string, NewFigure> news = gather_figures(runs);
  for (const BaselineMetric& bm : baseline.metrics) {
    const std::string id = reports::identity(bm.measurement);
    auto it = news.find(id);
    out.metrics.push_back(judge_metric(&bm, it == news.end() ? nullptr : &it->second, rules));
    if (it != news.end()) news.erase(it);
  }
  for (const auto& [id, nf] : news) out.metrics.push_back(judge_metric(nullptr, &nf, rules));
  // The false-alarm rate is per gate call: every judged figure that can
  // raise one gets its share. A figure whose baseline runs are all equal (a
  // count of wrong elements that is always 0) has no noise to be mistaken
  // for a change: it needs no share.
  for (const auto& m : out.metrics)
    if (m.state == MetricState::kJudged &&
        std::adjacent_find(m.baseline_values.begin(), m.baseline_values.end(),
                           std::not_equal_to<>()) != m.baseline_values.end())
      ++out.family;
  out.family = std::max(out.family, 1);
  for (auto& m : out.metrics)
    if (m.state == MetricState::kJudged)
      m.judgement = judge(*sense_of(m.measurement.better), m.baseline_values, m.values,
                          m.thresholds, out.family);
  out.checks = compare_checks(baseline, runs, rules);
  std::set<std::string> used;
  for (const auto& m : out.metrics) used.insert(m.rule);
  for (const auto& c : out.checks) used.insert(c.rule);
  for (const auto& r : rules.metrics)
    if (!used.count(r.origin)) {
      std::string labels;
      for (const auto& [k, v] : r.labels) labels += (labels.empty() ? "" : ", ") + k + " = \"" + v + "\"";
      out.unused_rules.push_back(r.origin + " [[metric]] name = \"" + r.name + "\"" +
                                 (labels.empty() ? "" : ", labels { " + labels + " }"));
    }
  for (const auto& r : rules.checks)
    if (!used.count(r.origin))
      out.unused_rules.push_back(r.origin + " [[check]] code = \"" + r.code + "\", entity = \"" +
                                 r.entity + "\", host = \"" + r.host + "\"");
  compare_states(baseline, runs, rules, out);
  return out;
}

}  // namespace hn::gate
