#pragma once
// L6 binding checks: each plane's NIC is the VLAN link it should be
// (NET-VLAN), carries the plane's address in the plane's subnet
// (NET-PLANE-ADDRESS), and nothing is bound the wrong way round: a plane's
// address on another NIC (NET-PLANE-BINDING), its subnet on another NIC
// (NET-PLANE-SUBNET), two planes on one NIC (NET-PLANE-SHARED-NIC), a
// parameter-plane address on the management NIC (NET-PLANE-PARAM-ON-MGMT).
// Every misbinding FAIL names both NICs and both planes. Presence, state and
// MTU of the NICs are L7's (physical_probes.h) and are not repeated here.

#include <vector>

#include "probes/node_context.h"
#include "reports/finding.h"

namespace hn::probes {

std::vector<reports::Finding> check_plane_binding(const NodeContext& ctx);

}  // namespace hn::probes
