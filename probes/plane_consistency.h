#pragma once
// Cross-node consistency of the planes (what no single node can see): every
// node of a plane must use the same NIC MTU (NET-XNODE-MTU) and, on RDMA
// planes, the same RoCE GID index for its plane address
// (NET-XNODE-GID-INDEX) and the same RDMA active MTU (NET-XNODE-RDMA-MTU).
// A FAIL lists each value with its nodes and names the odd ones out (those
// not holding the most common value). When the profile lists nodes, one
// NET-XNODE-COVERAGE finding says whether every listed node was compared
// (WARN naming those without readings; NodeReadings::spec must point into
// profile.nodes). Pure: works on readings, so
// `hnprecheck consistency` feeds it snapshots and `certify` can feed it live
// readings gathered from the ranks.

#include <string>
#include <vector>

#include "formats/profile.h"
#include "reports/finding.h"
#include "stack/l6_netplane/state.h"
#include "stack/l7_physical/inventory.h"

namespace hn::probes {

struct NodeReadings {
  std::string name;                         // the profile's node name, else the hostname
  const formats::NodeSpec* spec = nullptr;  // the node's profile entry, if any
  std::vector<stack::physical::Link> links;
  std::vector<stack::netplane::InterfaceAddress> addresses;
  std::vector<stack::netplane::Route> routes;
  stack::physical::RdmaInventory rdma;
};

std::vector<reports::Finding> check_plane_consistency(const formats::Profile& profile,
                                                      const std::vector<NodeReadings>& nodes);

}  // namespace hn::probes
