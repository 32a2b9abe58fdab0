#pragma once
// The bandwidth phase's part on each host (its lowest rank), per plane:
//
//   1. a mesh between the hosts (drivers/cluster/link_mesh.h, host index as
//      rank, the sparse pattern), its sockets bound to the plane address
//      only, as NCCL and HCCL bind theirs, so routes and policy rules act on
//      them as on the job;
//   2. screening: every pair of the pattern in `passes` sweeps of matching
//      rounds (each host in at most one pair per round), both directions at
//      once, the NIC byte counters read around every round;
//   3. each host posts its screening figures in the store; the host of rank
//      0 gathers them, screens them (probes/cluster/link_diagnosis.h) and
//      posts the second look's first stage; every host runs its part of it,
//      one direction at a time, counters read around each round as before;
//      then the same again for the suspects the first stage left standing.
//
// Returns the host's record (JSON, below) for the phase's combine step.
// Never throws for a link's failure (it is in the record); a host that
// cannot take part still posts its (empty) figures and follows the plan, so
// nobody waits for it beyond a link budget. Every wait ends by `deadline`.
//
// Record: {"host", "nic", "nics", "address", "speed_mbps", "error",
//   "failed": [link outcomes that did not connect], "seen_from": {peer: ip},
//   "rounds": [{"kind": "screen"|"again", "round", "peer", "sent", "received",
//   "gbps" (peer -> this host), "error", "nics": {nic: [rx, tx]}}],
//   "timing_ms": {"mesh", "screen", "again", "screen_rounds", "again_rounds",
//   "first_stage_rounds", "suspects" (rank 0's host only)}}.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "preflight/certify/state.h"
#include "probes/cluster/slow_links.h"

namespace hn::preflight::certify {

// args (per plane): {"hosts", "leaders", "link_test_ms", "again_ms", "passes",
// "repeats_first", "repeats_second",
// "budget_ms", "fraction", "line_fraction", "profile_speed_mbps"}.
// The line rate the absolute reference uses: the slowest host's live NIC
// speed when every host reported one, else the profile's speed_mbps, else
// unknown (gbps 0).
probes::cluster::LineRate plane_line_rate(const std::vector<int>& speeds_mbps, int profile_mbps,
                                          double fraction);

nlohmann::json measure_plane_links(RankState& st, const std::string& plane,
                                   const nlohmann::json& args, Deadline deadline);

}  // namespace hn::preflight::certify
