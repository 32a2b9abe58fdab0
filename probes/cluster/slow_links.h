#pragma once
// Locating a slow host or link on a plane from per-link bandwidth figures,
// instead of noticing that "the allreduce is slow". Users hand-roll this
// with pairwise and bisection runs; certify measures the directed links of
// the sparse pattern (link_pattern.h: every host against log2(n) peers in
// each direction) and narrows down:
//
//   1. per directed host pair, the median of its rank links' figures;
//   2. the plane's median M over those; a link is slow below fraction x M;
//   3. a host all of whose outgoing links are slow, while a receiver of one
//      of them has a fast incoming link from elsewhere, is a slow sender
//      (its NIC, cable or shaper); the same the other way round for a slow
//      receiver;
//   4. a slow link that no slow host explains is named as a pair.
//
// With two hosts a slow direction cannot be pinned on either end: the pair
// is named. Pure: figures in, findings (COMM-LINK-SLOW, entity and host set)
// and the measured figures (link.bandwidth, per directed host pair) out.

#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::probes::cluster {

struct DirectedRate {
  std::string from_host, to_host;
  double gbps = 0;
};

struct SlowLinkResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

SlowLinkResult locate_slow_links(const std::string& plane, const std::vector<DirectedRate>& rates,
                                 double fraction, const std::string& phase);

}  // namespace hn::probes::cluster
