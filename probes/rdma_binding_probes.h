#pragma once
// L6 RDMA binding of each plane that expects RDMA (profile `rdma:`):
//   NET-RDMA-NETDEV     the device's port drives the plane's NIC (or the
//                       parent of its VLAN link);
//   NET-RDMA-GID        the port has a GID of the expected type (RoCE v2 by
//                       default) carrying the plane address (IPv4-mapped
//                       ::ffff:a.b.c.d for IPv4);
//   NET-RDMA-GID-INDEX  that GID sits at the profile's gid_index;
//   NET-RDMA-MTU        the port's active MTU is the profile's rdma.mtu.
// The port being ACTIVE is L7's HW-RDMA-PORT. Without kernel RDMA support
// these are SKIPs with the reason.

#include <optional>
#include <string>
#include <vector>

#include "probes/netplane_view.h"
#include "probes/node_context.h"
#include "reports/finding.h"
#include "stack/l7_physical/inventory.h"

namespace hn::probes {

std::vector<reports::Finding> check_rdma_binding(const NodeContext& ctx);

// Whether an RDMA port serves the plane: its netdev, or a GID's netdev, is a
// plane NIC or the parent of one (RoCE over a VLAN link).
bool port_serves_plane(const stack::physical::RdmaPort& port, const PlaneView& plane,
                       const std::vector<stack::physical::Link>& links);

// The GID of the wanted type ("RoCE v2", "RoCE v1", "IB") that carries the
// address; nullptr when there is none.
const stack::physical::RdmaGid* find_plane_gid(const stack::physical::RdmaPort& port,
                                               const std::string& gid_type,
                                               const std::string& address);

// The device and port a plane's RDMA expectation means here: the named
// device (absent -> nullptr), else the first device with a port serving the
// plane.
struct PlaneRdma {
  const stack::physical::RdmaDevice* device = nullptr;
  const stack::physical::RdmaPort* port = nullptr;
};
PlaneRdma find_plane_rdma(const stack::physical::RdmaInventory& inv, const PlaneView& plane,
                          const std::vector<stack::physical::Link>& links);

}  // namespace hn::probes
