#pragma once
// Which entry of the profile's `nodes` list this run checks (PROFILE-NODE).
// When the profile declares nodes and this host is none of them, the plane
// checks lose their per-node data (nodes[].addresses, nodes[].nics), which a
// WARN says, naming the declared nodes; a profile without nodes gets no
// finding. Pure: reads only the context.

#include <vector>

#include "probes/node_context.h"
#include "reports/finding.h"

namespace hn::probes {

std::vector<reports::Finding> check_node_identity(const NodeContext& ctx);

}  // namespace hn::probes
