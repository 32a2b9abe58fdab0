#include "probes/plane_nics.h"

#include "stack/l6_netplane/source.h"

namespace hn::probes {

PlaneNics resolve_plane_nics(const stack::netplane::Plane& plane, const formats::NodeSpec* node,
                             const std::vector<stack::physical::Link>& links,
                             const std::vector<stack::netplane::Route>& routes) {
  PlaneNics out;
  out.pattern = plane.nic;
  if (node) {
    auto it = node->nics.find(plane.name);
    if (it != node->nics.end()) out.pattern = it->second;
  }
  if (out.pattern == "auto") {
    out.pattern = stack::netplane::default_route_nic(routes);
    if (out.pattern.empty()) {
      out.unresolved_reason =
          "`nic: auto` means the NIC of the IPv4 default route, and this node "
          "has no default route";
      return out;
    }
  }
  if (out.pattern.empty()) {
    out.unresolved_reason = "plane " + plane.name + " names no NIC for this node";
    return out;
  }
  for (const auto& l : links)
    if (stack::netplane::nic_matches(out.pattern, l.name)) out.matches.push_back(&l);
  return out;
}

}  // namespace hn::probes
