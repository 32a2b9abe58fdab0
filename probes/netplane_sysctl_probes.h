#pragma once
// Reply-path settings on multi-homed nodes (two or more plane NICs with
// addresses), per plane NIC, each judged on the value the kernel applies:
// max(conf/all, conf/<nic>).
//   NET-SYSCTL-RP-FILTER      recommend 2 (loose) or 0: strict mode (1) drops
//                             replies whose route back leaves via another NIC;
//                             strict is a WARN, since any later asymmetric
//                             route (failover, policy change) breaks the plane.
//   NET-SYSCTL-RP-ASYMMETRIC  with strict mode, the routes back to the plane's
//                             peers and subnet must leave via the plane NIC;
//                             one that does not is a FAIL naming it.
//   NET-SYSCTL-ARP-IGNORE     recommend 1: with 0 every NIC answers ARP for
//                             every local address, so peers learn the wrong MAC.
//   NET-SYSCTL-ARP-ANNOUNCE   recommend 2: ARP requests then carry the
//                             outgoing NIC's own address.
// Nothing is reported on a single-homed node.

#include <vector>

#include "probes/node_context.h"
#include "reports/finding.h"

namespace hn::probes {

std::vector<reports::Finding> check_plane_sysctls(const NodeContext& ctx);

}  // namespace hn::probes
