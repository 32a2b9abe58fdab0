#pragma once
// L6 routing checks through real route lookups (NetplaneSource::route_get:
// RTM_GETROUTE live, emulated on snapshots). For each plane:
//   NET-ROUTE-PEER    traffic to each peer leaves via the plane NIC from the
//                     plane address (looked up as a socket bound to that
//                     address, which is how NCCL, HCCL and Gloo send; without
//                     a known address, as an unbound socket). One FAIL per
//                     failing peer (entity: the peer; at most 16, then one
//                     for the rest), one PASS per plane and winning route
//                     (entity: "plane <name>");
//   NET-ROUTE-SUBNET  the plane subnet (a probe address in it) is on-link on
//                     the plane NIC (no gateway), from the plane address;
//   NET-ROUTE-POLICY  where unbound traffic of the plane would leave through
//                     another plane's route (routed peers, or a plane with its
//                     own gateway while the default route is another plane's),
//                     a source rule must send the plane's traffic back to its
//                     NIC.
// A FAIL shows the route that won. A plane whose address is missing here
// (PlaneView::address_missing: NET-PLANE-ADDRESS FAILs) gets one SKIP per
// check pointing there instead of a FAIL per route.

#include <vector>

#include "probes/netplane_view.h"
#include "probes/node_context.h"
#include "reports/finding.h"
#include "stack/l6_netplane/route_lookup.h"

namespace hn::probes {

std::vector<reports::Finding> check_plane_routes(const NodeContext& ctx);

// The lookups a plane's checks need, asked in one batch: for each target
// (peers, a subnet probe address, an off-plane address for the policy check)
// as a socket bound to the plane address, and as an unbound one where that is
// compared or needed. Shared with the rp_filter check, which judges the same
// reply paths. Planes without a NIC or without their address here are left
// out (nothing to look up from).
struct PlaneRoutes {
  struct Target {
    std::string dst;
    std::string subnet;     // set for the subnet probe
    bool routed = false;    // outside every subnet of the plane
    bool bindable = false;  // the plane address is this node's and of the target's family
    // As an unbound socket: asked for routed targets (the policy check),
    // failing ones (evidence) and when nothing can be bound; else empty.
    stack::netplane::RouteLookup unbound;
    // As a socket bound to the plane address; the unbound lookup again when
    // the address is unknown, not this node's, or of another family.
    stack::netplane::RouteLookup bound;
  };
  const PlaneView* plane = nullptr;
  std::vector<Target> targets;
};
std::vector<PlaneRoutes> lookup_plane_routes(const NodeContext& ctx, const NetReadings& r);

// A host address inside prefix to probe the subnet route with: the highest
// host address, skipping `avoid` (our own address). Empty when none exists.
std::string subnet_probe_address(const stack::netplane::IpPrefix& prefix, const std::string& avoid);

}  // namespace hn::probes
