#include "probes/cluster/slow_links.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "reports/catalog.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v < 0.1 ? "%.4f" : "%.3f", v);
  return b;
}

std::string ratio_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

using HostPair = std::pair<std::string, std::string>;

}  // namespace

SlowLinkResult locate_slow_links(const std::string& plane, const std::vector<DirectedRate>& rates,
                                 double fraction, const std::string& phase) {
  SlowLinkResult out;
  std::map<std::pair<int, int>, std::size_t> best;  // rank link -> its best round in per_pair
  std::map<HostPair, std::vector<double>> per_pair;
  for (const auto& r : rates) {
    if (r.from_host == r.to_host || r.gbps <= 0) continue;
    auto& v = per_pair[{r.from_host, r.to_host}];
    if (r.from_rank >= 0 && r.to_rank >= 0) {
      auto [it, fresh] = best.try_emplace({r.from_rank, r.to_rank}, v.size());
      if (!fresh) {
        v[it->second] = std::max(v[it->second], r.gbps);
        continue;
      }
    }
    v.push_back(r.gbps);
  }
  if (per_pair.size() < 2) {
    out.findings.push_back(make_finding(
        "COMM-LINK-SLOW", Status::kSkip, "plane " + plane,
        {{"reason", per_pair.empty() ? "no link between two hosts was measured on plane " + plane +
                                           " (every rank is on one host, or the links failed)"
                                     : "only one directed link between hosts was measured on "
                                       "plane " +
                                           plane + "; there is nothing to compare it with"}}));
    return out;
  }
  std::map<HostPair, double> link;
  std::vector<double> all;
  for (const auto& [pair, v] : per_pair) {
    link[pair] = median(v);
    all.push_back(link[pair]);
    reports::Measurement m;
    m.name = "link.bandwidth";
    m.labels = {{"plane", plane}, {"from", pair.first}, {"to", pair.second}};
    m.value = link[pair];
    m.unit = "GB/s";
    m.better = reports::Better::kHigher;
    m.phase = phase;
    out.metrics.push_back(m);
  }
  const double M = median(all);
  const double limit = fraction * M;
  auto slow = [&](const HostPair& p) { return link.at(p) < limit; };

  std::set<std::string> hosts;
  for (const auto& [p, v] : link) hosts.insert(p.first), hosts.insert(p.second);
  const bool can_localise = hosts.size() >= 3;
  std::set<HostPair> explained;
  std::set<std::string> named;  // hosts found slow, in either direction
  auto host_finding = [&](const std::string& h, bool sending) {
    named.insert(h);
    std::vector<double> mine;
    int n = 0;
    for (const auto& [p, v] : link)
      if ((sending ? p.first : p.second) == h) {
        mine.push_back(v);
        ++n;
        explained.insert(p);
      }
    double value = median(mine);
    Finding f =
        make_finding("COMM-LINK-SLOW", Status::kFail, h + " plane " + plane,
                     {{"plane", plane},
                      {"what", h + (sending ? " sends slowly: its " : " receives slowly: its ") +
                                   std::to_string(n) + " measured link(s) " +
                                   (sending ? "to" : "from") + " other hosts run"},
                      {"value", gbps(value)},
                      {"median", gbps(M)},
                      {"ratio", ratio_text(M > 0 ? value / M : 0)},
                      {"suspect", h},
                      {"direction", sending ? "send" : "receive"}});
    f.host = h;
    f.metrics["bandwidth"] = {value, "GB/s"};
    f.metrics["median"] = {M, "GB/s"};
    out.findings.push_back(std::move(f));
  };
  if (can_localise) {
    for (const auto& h : hosts) {
      for (bool sending : {true, false}) {
        bool any = false, all_slow = true, other_end_fine = false;
        for (const auto& [p, v] : link) {
          if ((sending ? p.first : p.second) != h) continue;
          any = true;
          if (!slow(p)) {
            all_slow = false;
            break;
          }
          // The other end of this slow link works with someone else.
          const std::string& other = sending ? p.second : p.first;
          for (const auto& [q, w] : link)
            if ((sending ? q.second : q.first) == other && (sending ? q.first : q.second) != h &&
                !slow(q))
              other_end_fine = true;
        }
        if (any && all_slow && other_end_fine) host_finding(h, sending);
      }
    }
  }
  // A slow link into a slow sender (or out of a slow receiver) is its echo:
  // TCP's acknowledgements of that link cross the same slow NIC the other
  // way (seen with a shaper on one host's egress: its incoming links fell
  // to 0.5 of the median).
  for (const auto& [p, v] : link)
    if (named.count(p.first) || named.count(p.second)) explained.insert(p);
  for (const auto& [p, v] : link) {
    if (!slow(p) || explained.count(p)) continue;
    Finding f = make_finding(
        "COMM-LINK-SLOW", Status::kFail, p.first + " -> " + p.second + " plane " + plane,
        {{"plane", plane},
         {"what", "link " + p.first + " -> " + p.second +
                      (can_localise ? "" : " (with two hosts the slow end cannot be told)")},
         {"value", gbps(v)},
         {"median", gbps(M)},
         {"ratio", ratio_text(M > 0 ? v / M : 0)},
         {"suspect", p.first + " and " + p.second},
         {"direction", "pair"}});
    f.host = p.first;
    f.metrics["bandwidth"] = {v, "GB/s"};
    f.metrics["median"] = {M, "GB/s"};
    out.findings.push_back(std::move(f));
  }
  if (out.findings.empty()) {
    Finding f = make_finding("COMM-LINK-SLOW", Status::kPass, "plane " + plane,
                             {{"plane", plane},
                              {"links", std::to_string(link.size())},
                              {"fraction", ratio_text(fraction)},
                              {"median", gbps(M)}});
    f.metrics["median"] = {M, "GB/s"};
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace hn::probes::cluster
