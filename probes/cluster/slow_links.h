#pragma once
// Locating a slow host or link on a plane from per-link bandwidth figures,
// instead of noticing that "the allreduce is slow". Users hand-roll this
// with pairwise and bisection runs; certify measures the directed links of
// the sparse pattern (link_pattern.h: every host against log2(n) peers in
// each direction) and narrows down:
//
//   1. per rank link, the best of its rounds (a measurement is only ever
//      made slower by noise: a round that another job's burst or a
//      scheduler hiccup slowed must not fail a link that another round
//      showed fast, while a shaper or a bad NIC caps every round); then per
//      directed host pair, the median of its rank links' figures;
//   2. the plane's median M over those; a link is slow below fraction x M;
//   3. a host all of whose outgoing links are slow, while a receiver of one
//      of them has a fast incoming link from elsewhere, is a slow sender
//      (its NIC, cable or shaper); the same the other way round for a slow
//      receiver;
//   4. a slow link that no slow host explains is named as a pair; a link
//      with a slow host at either end is explained by it (the link's
//      acknowledgements cross that host's NIC the other way).
//
// With two hosts a slow direction cannot be pinned on either end: the pair
// is named. Pure: figures in, findings (COMM-LINK-SLOW, entity and host set)
// and the measured figures (link.bandwidth, per directed host pair) out.

#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::probes::cluster {

// One round's figure of one directed link. Rounds of the same rank link
// (from_rank, to_rank, both >= 0) are reduced to their best; a figure
// without ranks (-1) counts as a link of its own.
struct DirectedRate {
  std::string from_host, to_host;
  double gbps = 0;
  int from_rank = -1, to_rank = -1;
};

struct SlowLinkResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

SlowLinkResult locate_slow_links(const std::string& plane, const std::vector<DirectedRate>& rates,
                                 double fraction, const std::string& phase);

}  // namespace hn::probes::cluster
