#include "probes/model/phase_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/catalog.h"

namespace hn::probes::model {

namespace fw = stack::framework;
using reports::Status;

std::string number(double v, const char* format) {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return "[" + s + "]";
}

void PhaseReport::job(reports::Finding f) {
  if (rank_ == 0) result_.findings.push_back(std::move(f));
}

void PhaseReport::measure(const std::string& name, std::map<std::string, std::string> labels,
                          double value, const std::string& unit, reports::Better better) {
  if (rank_ != 0) return;
  labels["layout"] = layout_;
  result_.measurements.push_back({name, std::move(labels), value, unit, better, "model"});
}

void PhaseReport::layout_finding(fw::ProcessGroups& g, int world) {
  if (rank_ != 0) return;
  const fw::Layout& l = g.layout;
  std::string groups = "tp " + rank_list(g.tp->world_ranks()) + ", pp " +
                       rank_list(g.pp->world_ranks()) + ", dp " + rank_list(g.dp->world_ranks());
  if (l.ep > 1)
    groups += ", ep " + rank_list(g.ep->world_ranks()) + ", expert-dp " +
              rank_list(g.expert_dp->world_ranks());
  groups = std::to_string(l.world() / l.tp) + " tp groups of " + std::to_string(l.tp) + ", " +
           std::to_string(l.world() / l.pp) + " pp groups of " + std::to_string(l.pp) + ", " +
           std::to_string(l.world() / l.dp) + " dp groups of " + std::to_string(l.dp) +
           (l.ep > 1 ? ", ep " + std::to_string(l.ep) : "") + "; rank 0 is in " + groups;
  // Not a check of its own (a layout that does not fit the world is bad
  // input before anything runs): the groups are evidence of the checks that
  // ran over them.
  groups_ = "layout " + layout_ + " over " + std::to_string(world) + " ranks: " + groups;
}

void PhaseReport::replica_finding(const ReplicaSeen& s) {
  std::map<std::string, std::string> p = {
      {"group", s.group == "dp" ? "data-parallel" : "expert data-parallel"},
      {"members", rank_list(s.members)},
      {"step", std::to_string(s.step + 1)}};
  // A group of one has nothing to compare: a check that cannot fail is not
  // a PASS.
  if (s.members.size() < 2) return;
  const std::string entity = s.group + " " + rank_list(s.members);
  if (s.diverged.empty()) {
    add(reports::make_finding("MODEL-REPLICA", Status::kPass, entity, p));
  } else {
    p["diverged"] = rank_list(s.diverged);
    add(reports::make_finding("MODEL-REPLICA", Status::kFail, entity, p));
  }
}

void PhaseReport::equivalence(const std::vector<double>& ref, const std::vector<double>& other,
                              const std::vector<double>& par) {
  auto rel = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); };
  double noise = 0;
  for (std::size_t s = 0; s < std::min(ref.size(), other.size()); ++s)
    noise = std::max(noise, rel(other[s], ref[s]));
  const double tol = std::max(kNoiseFactor * noise, kToleranceFloor);
  const std::string basis =
      kNoiseFactor * noise >= kToleranceFloor
          ? number(kNoiseFactor, "%g") + " times the " + number(noise, "%.1e") +
                " by which the single-rank run summed in another order differs"
          : "the floor " + number(kToleranceFloor, "%.0e") + ": the single-rank run summed in "
                "another order differs by " + number(noise, "%.1e");
  double worst = 0;
  std::size_t at = 0, first_bad = par.size();
  const std::size_t n = std::min(ref.size(), par.size());
  for (std::size_t s = 0; s < n; ++s) {
    const double d = rel(par[s], ref[s]);
    const bool bad = !(d <= tol);  // NaN is bad
    if (bad && first_bad == par.size()) first_bad = s;
    if (!(d <= worst)) {
      worst = d;
      at = s;
    }
  }
  std::map<std::string, std::string> p = {{"layout", layout_},
                                          {"tolerance", number(tol, "%.1e")},
                                          {"tolerance_basis", basis},
                                          {"steps", std::to_string(n)},
                                          {"max_diff", number(worst, "%.2e")},
                                          {"step", std::to_string(at + 1)}};
  Status st = Status::kPass;
  if (first_bad < par.size() || n < par.size() || n == 0) {
    st = Status::kFail;
    const std::size_t s = first_bad < par.size() ? first_bad : n;
    p["step"] = std::to_string(s + 1);
    p["parallel"] = s < par.size() ? number(par[s], "%.17g") : "?";
    p["reference"] = s < ref.size() ? number(ref[s], "%.17g") : "not reached before the deadline";
    p["diff"] = s < n ? number(rel(par[s], ref[s]), "%.2e") : "?";
    std::string why;
    if (s >= n) {
      why = "the single-rank run did not finish its steps before the deadline";
    } else if (s == 0) {
      why = "the first step's loss already differs, before any update: the forward pass "
            "computes something else (activations or targets misrouted between pipeline "
            "stages, the batch split wrongly)";
    } else {
      const double dref = ref[s] - ref[s - 1], dpar = par[s] - par[s - 1];
      const double ratio = std::abs(dref) > 0 ? dpar / dref : 0;
      p["update_ratio"] = number(ratio, "%.3g");
      if (std::abs(ratio) < 0.1)
        why = "step " + std::to_string(s) + " changed the loss " +
              (std::abs(ratio) < 5e-4 ? std::string("not at all") :
                                        number(ratio, "%.3g") + " times as much as one rank's") +
              ": its update was not applied (stale parameters)";
      else if (std::abs(ratio - 1) > 0.02)
        why = "step " + std::to_string(s) + " changed the loss " + number(ratio, "%.3g") +
              " times as much as one rank's: a gradient scaled by about that (a missing or "
              "repeated reduction, a wrong average)";
      else
        why = "step " + std::to_string(s) +
              "'s update has the size of one rank's but not its direction: gradients "
              "corrupted or misrouted (a bucket left out of the reduction, a sign, a wrong "
              "element or shard)";
    }
    p["diagnosis"] = why;
  }
  auto f = reports::make_finding("MODEL-EQUIVALENCE", st, layout_, p);
  f.metrics["max_relative_difference"] = {worst, ""};
  f.metrics["tolerance"] = {tol, ""};
  f.metrics["summation_noise"] = {noise, ""};
  job(f);
  measure("model.equivalence_max_diff", {}, worst, "", reports::Better::kLower);
}

fw::StepTime mean_step(const std::vector<fw::StepTime>& steps) {
  if (steps.empty()) return {};
  std::vector<fw::StepTime> used(steps.size() > 1 ? steps.begin() + 1 : steps.begin(), steps.end());
  fw::StepTime sum = fw::sum_steps(used);
  const double n = static_cast<double>(used.size());
  sum.total_ms /= n;
  for (auto& r : sum.rows) {
    r.ms /= n;
    r.bytes = static_cast<std::uint64_t>(std::llround(static_cast<double>(r.bytes) / n));
    r.calls = static_cast<std::uint64_t>(std::llround(static_cast<double>(r.calls) / n));
  }
  return sum;
}

std::string encode_rows(const fw::StepTime& t) {
  std::ostringstream os;
  os << "total\t\t" << number(t.total_ms, "%.17g") << "\t0\t0\n";
  for (const auto& r : t.rows)
    os << r.layer << '\t' << r.what << '\t' << number(r.ms, "%.17g") << '\t' << r.bytes << '\t'
       << r.calls << '\n';
  return os.str();
}

fw::StepTime decode_rows(const std::string& text) {
  fw::StepTime t;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::size_t at = 0;
    for (std::size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
      f.push_back(line.substr(at, tab - at));
    f.push_back(line.substr(at));
    if (f.size() != 5) continue;
    if (f[0] == "total") {
      t.total_ms = std::stod(f[2]);
      continue;
    }
    t.rows.push_back({f[0], f[1], std::stod(f[2]), std::stoull(f[3]), std::stoull(f[4])});
  }
  return t;
}

int slowest(const std::vector<fw::StepTime>& per_rank) {
  int at = 0;
  for (std::size_t r = 1; r < per_rank.size(); ++r)
    if (per_rank[r].total_ms > per_rank[static_cast<std::size_t>(at)].total_ms)
      at = static_cast<int>(r);
  return at;
}

void PhaseReport::step_table(stack::comm::Communicator& world, const std::string& run_id,
                             const std::vector<fw::StepTime>& steps, int planned) {
  (void)planned;
  const fw::StepTime mine = mean_step(steps);
  fw::StepTime table = mine;
  std::string basis = "rank " + std::to_string(rank_);
  if (world.size() > 1) {
    const std::string key = "model/" + run_id + "/step_time/";
    world.store().set(key + std::to_string(rank_), encode_rows(mine));
    if (rank_ != 0) return;  // the table and its figures are rank 0's
    std::vector<fw::StepTime> all;
    for (int r = 0; r < world.size(); ++r)
      all.push_back(decode_rows(world.store().get(key + std::to_string(r), world.timeout())));
    const int at = slowest(all);
    table = all[static_cast<std::size_t>(at)];
    basis = "rank " + std::to_string(at) + ", the slowest";
  }
  reports::StepTable& t = result_.table;
  t.layout = layout_;
  t.world = world.size();
  t.steps = static_cast<int>(steps.size() > 1 ? steps.size() - 1 : steps.size());
  t.basis = basis;
  t.total_ms = table.total_ms;
  t.rows.clear();
  double by_layer[5] = {0, 0, 0, 0, 0};
  for (const auto& r : table.rows) {
    t.rows.push_back(
        {r.layer, r.what, r.ms, static_cast<double>(r.bytes), static_cast<double>(r.calls)});
    if (r.layer.size() == 2 && r.layer[0] == 'L' && r.layer[1] >= '1' && r.layer[1] <= '4')
      by_layer[r.layer[1] - '0'] += r.ms;
    measure("model.step_time", {{"layer", r.layer}, {"op", r.what}}, r.ms, "ms",
            reports::Better::kLower);
    if (r.bytes > 0)
      measure("model.step_bytes", {{"layer", r.layer}, {"op", r.what}},
              static_cast<double>(r.bytes), "bytes", reports::Better::kNone);
  }
  measure("model.step_time", {{"layer", "total"}}, table.total_ms, "ms", reports::Better::kLower);
  // Figures, not a check (nothing to hold them to): the step table and the
  // model.step_time measurements carry them, and a summary is evidence of
  // the loss check.
  step_summary_ = number(table.total_ms, "%.2f") + " ms per step over " + std::to_string(t.steps) +
                  " step(s) (" + basis + "): L4 " + number(by_layer[4], "%.2f") + " ms, L3 " +
                  number(by_layer[3], "%.2f") + " ms, L2 " + number(by_layer[2], "%.2f") +
                  " ms, L1 " + number(by_layer[1], "%.2f") + " ms";
}

ModelPhaseResult PhaseReport::finish(const std::vector<double>& losses) {
  result_.losses = losses;
  for (auto& f : result_.findings) {
    if ((f.code == "MODEL-EQUIVALENCE" || f.code == "MODEL-LOSS") && !groups_.empty())
      f.evidence["groups"] = groups_;
    if (f.code == "MODEL-LOSS" && !step_summary_.empty()) f.evidence["step_time"] = step_summary_;
  }
  return std::move(result_);
}

}  // namespace hn::probes::model
