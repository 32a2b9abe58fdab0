#pragma once
// A simulated cluster for the link diagnosis tests: directed links at the
// smaller of the sender's and the receiver's capacity (and of a pair's or a
// group's cap), with noise, measured with the bandwidth phase's protocol
// (screening over the sparse pattern, the two-stage second look, verdict).

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "drivers/cluster/link_pattern.h"
#include "probes/cluster/link_diagnosis.h"
#include "probes/cluster/slow_links.h"

namespace hn::test {

using namespace hn::probes::cluster;
using hn::reports::Finding;
using hn::reports::Status;

// A cluster whose directed link a -> b runs at the smaller of a's send and
// b's receive capacity (and of a pair's or a group's cap), times noise.
struct Sim {
  int hosts = 3;
  std::vector<double> send, receive;
  std::map<HostLink, double> pair_cap;
  std::set<int> group;
  double group_cap = 0;
  // Screening runs both directions at once: links into a host that sends
  // slowly are slowed by this factor (their acknowledgements queue behind
  // its data), as a shaper on its egress does.
  double echo = 1;
  // Each figure is multiplied by U(1 - noise, 1); with bimodal set, by 1 or
  // `low` at random (where the scheduler puts the two ends on 2 CPUs).
  double noise = 0;
  bool bimodal = false;
  double low = 0.575;
  std::mt19937 rng{1};

  explicit Sim(int n, double cap = 1.0)
      : hosts(n),
        send(static_cast<std::size_t>(n), cap),
        receive(static_cast<std::size_t>(n), cap) {}

  double rate(int a, int b, bool both_ways) {
    double v = std::min(send[static_cast<std::size_t>(a)], receive[static_cast<std::size_t>(b)]);
    if (auto it = pair_cap.find({a, b}); it != pair_cap.end()) v = std::min(v, it->second);
    if (!group.empty() && group.count(a) != group.count(b)) v = std::min(v, group_cap);
    if (both_ways && send[static_cast<std::size_t>(b)] < send[static_cast<std::size_t>(a)])
      v *= echo;
    if (bimodal) return std::bernoulli_distribution(0.5)(rng) ? v : v * low;
    return v * std::uniform_real_distribution<double>(1 - noise, 1)(rng);
  }

  std::vector<LinkSample> screening(int passes = 2) {
    std::vector<LinkSample> out;
    for (int p = 0; p < passes; ++p)
      for (const auto& [a, b] : hn::drivers::cluster::link_pairs(hosts)) {
        out.push_back({a, b, rate(a, b, true)});
        out.push_back({b, a, rate(b, a, true)});
      }
    return out;
  }

  std::vector<LinkSample> again(const std::vector<std::vector<HostLink>>& rounds, int first) {
    std::vector<LinkSample> out;
    for (std::size_t r = 0; r < rounds.size(); ++r)
      for (const auto& [a, b] : rounds[r])
        out.push_back({a, b, rate(a, b, false), first + static_cast<int>(r)});
    return out;
  }
};

inline std::vector<std::string> names(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("host" + std::to_string(i));
  return out;
}

struct Outcome {
  LinkScreen screen;
  SlowLinkResult result;
  std::size_t rounds = 0;
  std::vector<Finding> with(const std::string& code, Status st) const {
    std::vector<Finding> out;
    for (const auto& f : result.findings)
      if (f.code == code && f.status == st) out.push_back(f);
    return out;
  }
  std::vector<Finding> fails() const {
    std::vector<Finding> out;
    for (const auto& f : result.findings)
      if (f.status == Status::kFail || f.status == Status::kWarn) out.push_back(f);
    return out;
  }
};

// The bandwidth phase's protocol: screen, 4 repeats of every suspect, 8 more
// of those still standing, verdict.
inline Outcome diagnose(Sim& sim, double fraction = 0.75, LineRate line = {}) {
  Outcome o;
  o.screen = screen_links(sim.hosts, sim.screening(), fraction, line_floor(line));
  const auto first = confirm_rounds(o.screen, 4);
  auto again = sim.again(first, 0);
  const auto which = still_suspect(o.screen, again);
  std::vector<std::vector<HostLink>> second;
  if (!first.empty() && !which.empty()) second = confirm_rounds(o.screen, 8, which);
  auto more = sim.again(second, static_cast<int>(first.size()));
  again.insert(again.end(), more.begin(), more.end());
  o.rounds = first.size() + second.size();
  o.result = judge_links("p", names(sim.hosts), o.screen, judge_suspects(o.screen, again), line, 12,
                         "bandwidth");
  return o;
}

inline std::string all(const Outcome& o) {
  std::string s;
  for (const auto& f : o.result.findings)
    s += std::string(to_string(f.status)) + " " + f.code + " " + f.message + "\n";
  return s;
}

}  // namespace hn::test
