#include "preflight/certify/plane_bind.h"

#include "preflight/node_sources.h"
#include "probes/netplane_view.h"

namespace hn::preflight::certify {

PlaneBinding plane_binding(const RankState& st, const std::string& plane) {
  probes::NodeContext ctx;
  ctx.profile = st.options->profile;
  ctx.sources = open_live_sources();
  ctx.node = st.role.node.empty() ? nullptr : ctx.profile->find_node(st.role.node);
  const probes::NetReadings net = probes::read_net(ctx);
  PlaneBinding out;
  for (const auto& pv : net.view.planes) {
    if (pv.plane->name != plane) continue;
    out.nics = pv.nics;
    if (!pv.unresolved_reason.empty()) {
      out.bind.error = pv.unresolved_reason;
    } else if (!pv.address_missing.empty()) {
      out.bind.error = pv.address_missing;
    } else if (pv.address.empty() || !pv.address_here) {
      out.bind.error = "no address of plane " + plane + " is configured on this host";
    } else {
      out.bind.address = pv.address;
      for (const auto& a : net.addresses)
        if (a.address == pv.address) out.bind.nic = a.nic;
      for (const auto& l : net.links)
        if (l.name == out.bind.nic && l.speed_mbps && *l.speed_mbps > 0)
          out.speed_mbps = *l.speed_mbps;
    }
    return out;
  }
  out.bind.error = "plane " + plane + " is not in the profile";
  return out;
}

}  // namespace hn::preflight::certify
