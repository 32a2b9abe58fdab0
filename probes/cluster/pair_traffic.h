#pragma once
// The traffic proof per pair: in certify's bandwidth phase every host is in
// at most one pair per round, and reads its NICs' byte counters around each
// round (link_mesh.h's exchange), so a round's counter deltas on a host
// belong to that host's one pair. For every pair the phase measures, both
// ends are judged:
//
//   * the sender's plane NIC sent at least `min_share` (95 %) of the payload
//     it streamed (counters include headers, so a healthy NIC shows a
//     little over 100 %); otherwise FAIL naming the pair and the NIC that
//     carried the bytes (the one whose transmit counter grew the most): a
//     route, a policy rule (to, ipproto, fwmark, uidrange selectors) or a
//     source-address rule that sends this one pair elsewhere;
//   * the receiver's plane NIC received at least min_share of what arrived;
//   * the receiver saw the sender's connection come from the sender's plane
//     address (a wrong source address is a FAIL even when the bytes used
//     the right NIC);
//   * the other NICs' transmit bytes during a host's rounds are an upper
//     bound on plane bytes that left elsewhere: reported per host, and when
//     they reach `min_share`'s complement of a round's payload while the
//     plane NIC shows it all, the pair is a WARN (unrelated traffic could
//     hide a misrouted share; the counters cannot tell which bytes are ours).
//
// Pure: readings in, NET-TRAFFIC-PAIR findings (a FAIL/WARN per pair end, a
// PASS per host) and traffic.other_nic_tx_bytes per host out. Loopback is
// never counted (it carries only this host's own ranks).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"
#include "stack/l6_netplane/nic_counters.h"

namespace hn::probes::cluster {

// One host's part in one round.
struct PairRound {
  int peer = -1;
  std::uint64_t sent = 0, received = 0;  // payload bytes
  stack::netplane::NicCounters delta;    // this host's NICs over the round
};

struct HostRounds {
  std::string name;
  std::vector<std::string> plane_nics;
  std::string address;                   // its plane address (IP)
  std::map<int, std::string> seen_from;  // peer host -> IP its connection came from
  std::vector<PairRound> rounds;
};

struct PairTrafficResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

// hosts: index = host index (peers refer to it). A host with no rounds is
// left out.
PairTrafficResult check_pair_traffic(const std::string& plane, const std::vector<HostRounds>& hosts,
                                     double min_share, const std::string& phase);

}  // namespace hn::probes::cluster
