#pragma once
// Checks across the hosts of a job that no single host can make, on live
// readings gathered from every host (certify's cross_host phase; the plane
// MTU / GID consistency is probes/plane_consistency.h):
//
//   NET-XHOST-ADDRESS-DUP  one address of a plane's NICs on two hosts
//   NET-XHOST-SUBNET       a host's plane NIC carries addresses, none inside
//                          the plane's subnet(s) (the peers cannot reach it)
//   CERT-XHOST-SAME-NODE   two hosts resolve to the same profile node
//   CERT-XHOST-COVERAGE    declared nodes that are not in the job
//
// Pure: readings in (NodeReadings::name is the host name, spec its profile
// node), findings out; host findings name their host (Finding::host).

#include <vector>

#include "formats/profile.h"
#include "probes/plane_consistency.h"
#include "reports/finding.h"

namespace hn::probes::cluster {

std::vector<reports::Finding> check_duplicate_addresses(const formats::Profile& profile,
                                                        const std::vector<NodeReadings>& hosts);
std::vector<reports::Finding> check_plane_subnets(const formats::Profile& profile,
                                                  const std::vector<NodeReadings>& hosts);
// One entry per host: its name and its profile node (nullptr: none).
std::vector<reports::Finding> check_same_node(const std::vector<NodeReadings>& hosts);
std::vector<reports::Finding> check_coverage(const formats::Profile& profile,
                                             const std::vector<NodeReadings>& hosts);

}  // namespace hn::probes::cluster
