#pragma once
// Which NICs a plane means on this node: the node's override from
// nodes[].nics, else the plane's `nic` (a name or a glob), where "auto" is the
// NIC of the default route. Shared by the L7 NIC checks and the L6 binding
// checks so both judge the same NICs.

#include <string>
#include <vector>

#include "formats/profile.h"
#include "stack/l6_netplane/state.h"
#include "stack/l7_physical/inventory.h"

namespace hn::probes {

struct PlaneNics {
  std::string pattern;            // what was matched ("eth1", "ens1f*", or the auto result)
  std::string unresolved_reason;  // non-empty when the pattern could not be formed
  std::vector<const stack::physical::Link*> matches;  // in link order
};

PlaneNics resolve_plane_nics(const stack::netplane::Plane& plane, const formats::NodeSpec* node,
                             const std::vector<stack::physical::Link>& links,
                             const std::vector<stack::netplane::Route>& routes);

}  // namespace hn::probes
