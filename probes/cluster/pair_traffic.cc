#include "probes/cluster/pair_traffic.h"

#include <algorithm>
#include <cstdio>

#include "probes/cluster/traffic_proof.h"
#include "reports/catalog.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;

namespace {

// A round's payload below this is too small to judge shares of: headers and
// the tokens around it dominate.
constexpr std::uint64_t kMinJudged = 64 * 1024;

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v * 100);
  return b;
}

struct PairSums {
  std::uint64_t sent = 0, received = 0;
  std::uint64_t plane_tx = 0, plane_rx = 0, other_tx = 0;
  std::map<std::string, std::uint64_t> other_tx_by_nic, other_rx_by_nic;
};

std::pair<std::string, std::uint64_t> largest(const std::map<std::string, std::uint64_t>& m) {
  std::pair<std::string, std::uint64_t> best{"no other NIC", 0};
  for (const auto& [nic, v] : m)
    if (v > best.second) best = {nic, v};
  return best;
}

std::string nic_list(const std::vector<std::string>& nics) {
  std::string s;
  for (const auto& n : nics) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "no plane NIC" : s;
}

}  // namespace

PairTrafficResult check_pair_traffic(const std::string& plane, const std::vector<HostRounds>& hosts,
                                     double min_share, const std::string& phase) {
  PairTrafficResult out;
  auto name = [&](int h) {
    return h >= 0 && h < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(h)].name
                                                        : "host " + std::to_string(h);
  };
  auto address = [&](int h) {
    return h >= 0 && h < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(h)].address
                                                        : std::string();
  };
  for (std::size_t hi = 0; hi < hosts.size(); ++hi) {
    const HostRounds& h = hosts[hi];
    if (h.rounds.empty()) continue;
    const int me = static_cast<int>(hi);
    auto is_plane = [&](const std::string& nic) {
      return std::find(h.plane_nics.begin(), h.plane_nics.end(), nic) != h.plane_nics.end();
    };
    const std::string plane_nic = nic_list(h.plane_nics);
    std::map<int, PairSums> pairs;
    std::uint64_t other_total = 0, sent_total = 0, received_total = 0, plane_tx_total = 0;
    for (const auto& r : h.rounds) {
      PairSums& p = pairs[r.peer];
      p.sent += r.sent;
      p.received += r.received;
      sent_total += r.sent;
      received_total += r.received;
      for (const auto& [nic, d] : r.delta) {
        if (nic == "lo") continue;
        if (is_plane(nic)) {
          p.plane_tx += d.tx;
          p.plane_rx += d.rx;
          plane_tx_total += d.tx;
        } else {
          p.other_tx += d.tx;
          p.other_tx_by_nic[nic] += d.tx;
          p.other_rx_by_nic[nic] += d.rx;
          other_total += d.tx;
        }
      }
    }
    bool bad = false;
    auto fail = [&](Status st, int from, int to, const std::string& problem, double share,
                    const std::string& carrier, std::uint64_t carrier_bytes) {
      Finding f =
          make_finding("NET-TRAFFIC-PAIR", st, name(from) + " -> " + name(to) + " plane " + plane,
                       {{"plane", plane},
                        {"from", name(from)},
                        {"to", name(to)},
                        {"problem", problem},
                        {"plane_nic", plane_nic},
                        {"from_ip", address(from).empty() ? "<plane address>" : address(from)},
                        {"to_ip", address(to).empty() ? "<peer's plane address>" : address(to)},
                        {"carrier", carrier}});
      f.host = h.name;
      f.metrics["plane_share"] = {share * 100, "%"};
      if (carrier_bytes > 0)
        f.metrics[carrier + ".bytes"] = {static_cast<double>(carrier_bytes), "bytes"};
      out.findings.push_back(std::move(f));
      bad = true;
    };
    for (const auto& [peer, p] : pairs) {
      if (p.sent >= kMinJudged) {
        const double share = static_cast<double>(p.plane_tx) / static_cast<double>(p.sent);
        const auto [carrier, bytes] = largest(p.other_tx_by_nic);
        if (share < min_share)
          fail(Status::kFail, me, peer,
               "only " + pct(share) + "% of the " + bytes_text(p.sent) + " " + h.name +
                   " sent left through " + plane_nic + "; " + carrier + " sent " +
                   bytes_text(bytes) + " in the same rounds",
               share, carrier, bytes);
        else if (static_cast<double>(p.other_tx) >= (1 - min_share) * static_cast<double>(p.sent))
          fail(Status::kWarn, me, peer,
               pct(share) + "% of the " + bytes_text(p.sent) + " " + h.name +
                   " sent was counted on " + plane_nic + ", but " + carrier + " sent " +
                   bytes_text(bytes) +
                   " in the same rounds: up to that much of the pair's traffic may have left "
                   "elsewhere (counters cannot tell whose bytes they are)",
               share, carrier, bytes);
      }
      if (p.received >= kMinJudged) {
        const double share = static_cast<double>(p.plane_rx) / static_cast<double>(p.received);
        const auto [carrier, bytes] = largest(p.other_rx_by_nic);
        if (share < min_share)
          fail(Status::kFail, peer, me,
               "only " + pct(share) + "% of the " + bytes_text(p.received) + " " + h.name +
                   " received arrived on " + plane_nic + "; " + carrier + " received " +
                   bytes_text(bytes) + " in the same rounds",
               share, carrier, bytes);
      }
    }
    for (const auto& [peer, ip] : h.seen_from) {
      const std::string want = address(peer);
      if (want.empty() || ip == want) continue;
      fail(Status::kFail, peer, me,
           h.name + " sees " + name(peer) + "'s connection come from " + ip + ", not " +
               name(peer) + "'s plane address " + want + " (a source-address rule or SNAT)",
           1.0, "", 0);
    }
    reports::Measurement m;
    m.name = "traffic.other_nic_tx_bytes";
    m.labels = {{"host", h.name}, {"plane", plane}};
    m.value = static_cast<double>(other_total);
    m.unit = "bytes";
    m.better = reports::Better::kLower;
    m.phase = phase;
    out.metrics.push_back(m);
    if (bad || (sent_total < kMinJudged && received_total < kMinJudged)) continue;
    Finding f = make_finding("NET-TRAFFIC-PAIR", Status::kPass, h.name + " " + plane_nic,
                             {{"host", h.name},
                              {"sent", bytes_text(sent_total)},
                              {"received", bytes_text(received_total)},
                              {"peers", std::to_string(pairs.size())},
                              {"plane_nic", plane_nic},
                              {"share", pct(sent_total ? static_cast<double>(plane_tx_total) /
                                                             static_cast<double>(sent_total)
                                                       : 1.0)},
                              {"other", bytes_text(other_total)}});
    f.host = h.name;
    f.metrics["other_nic_tx"] = {static_cast<double>(other_total), "bytes"};
    f.metrics["sent"] = {static_cast<double>(sent_total), "bytes"};
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace hn::probes::cluster
