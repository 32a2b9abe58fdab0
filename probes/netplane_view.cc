#include "probes/netplane_view.h"

#include <algorithm>

#include "compat/join.h"
#include "probes/plane_nics.h"
#include "stack/l6_netplane/ip_address.h"

namespace hn::probes {

namespace netplane = stack::netplane;

namespace {

bool global_scope(const netplane::InterfaceAddress& a) {
  return a.scope.empty() || a.scope == "global" || a.scope == "universe";
}

}  // namespace

bool same_ip(const std::string& a, const std::string& b) {
  auto x = stack::netplane::try_parse_ip(a), y = stack::netplane::try_parse_ip(b);
  return x && y && *x == *y;
}

std::string join_list(const std::vector<std::string>& items) {
  return compat::join(items, ", ", "none");
}

bool PlaneView::has_nic(const std::string& nic) const {
  return std::find(nics.begin(), nics.end(), nic) != nics.end();
}

std::string PlaneView::nic_list() const {
  return join_list(nics);
}

bool PlaneView::in_subnets(const std::string& address) const {
  auto ip = netplane::try_parse_ip(address);
  if (!ip) return false;
  return std::any_of(plane->subnets.begin(), plane->subnets.end(),
                     [&](const netplane::IpPrefix& s) { return s.contains(*ip); });
}

std::string NetplaneView::planes_of(const std::string& nic, const PlaneView* except) const {
  std::vector<std::string> names;
  for (const auto& p : planes)
    if (p.has_nic(nic) && &p != except) names.push_back(p.plane->name);
  if (names.empty()) return except && except->has_nic(nic) ? "no other plane" : "no plane";
  return (names.size() == 1 ? "plane " : "planes ") + join_list(names);
}

std::vector<const PlaneView*> NetplaneView::of_type(netplane::PlaneType t) const {
  std::vector<const PlaneView*> out;
  for (const auto& p : planes)
    if (p.is(t)) out.push_back(&p);
  return out;
}

NetplaneView build_netplane_view(const formats::Profile& profile, const formats::NodeSpec* node,
                                 const std::vector<stack::physical::Link>& links,
                                 const std::vector<netplane::InterfaceAddress>& addresses,
                                 const std::vector<netplane::Route>& routes) {
  NetplaneView view;
  for (const auto& plane : profile.planes) {
    PlaneView pv;
    pv.plane = &plane;
    pv.named = !plane.nic.empty() || (node && node->nics.count(plane.name));
    if (pv.named) {
      PlaneNics resolved = resolve_plane_nics(plane, node, links, routes);
      pv.unresolved_reason = resolved.unresolved_reason;
      for (const auto* l : resolved.matches) pv.nics.push_back(l->name);
      if (pv.unresolved_reason.empty() && pv.nics.empty())
        pv.unresolved_reason = "no NIC matches '" + resolved.pattern + "'";
    } else {
      for (const auto& l : links)
        for (const auto& a : addresses)
          if (a.nic == l.name && pv.in_subnets(a.address) && !pv.has_nic(l.name))
            pv.nics.push_back(l.name);
      if (pv.nics.empty())
        pv.unresolved_reason = "plane " + plane.name +
                               " names no NIC and no NIC here has an "
                               "address in its subnet";
    }
    if (node) {
      auto it = node->addresses.find(plane.name);
      if (it != node->addresses.end()) {
        pv.address = it->second;
        pv.address_declared = true;
      }
    }
    // The address as configured: its prefix length, or (undeclared) the
    // first global address of a plane NIC in the subnet, IPv4 first.
    for (int family : {4, 6}) {
      for (const auto& a : addresses) {
        if (!pv.has_nic(a.nic) || a.family != family || !global_scope(a)) continue;
        if (pv.address_declared) {
          auto want = netplane::try_parse_ip(pv.address), have = netplane::try_parse_ip(a.address);
          if (want && have && *want == *have) pv.address_prefix_len = a.prefix_len;
          continue;
        }
        if (!pv.address.empty()) continue;
        if (plane.subnets.empty() || pv.in_subnets(a.address)) {
          pv.address = a.address;
          pv.address_prefix_len = a.prefix_len;
        }
      }
    }
    auto own = netplane::try_parse_ip(pv.address);
    pv.address_here = own && std::any_of(addresses.begin(), addresses.end(), [&](const auto& a) {
                        auto ip = netplane::try_parse_ip(a.address);
                        return ip && *ip == *own;
                      });
    if (!pv.nics.empty()) {
      if (pv.address_declared && !pv.address_here)
        pv.address_missing =
            "address " + pv.address + " of plane " + plane.name + " is on no NIC of this node";
      else if (!pv.address_declared && pv.address.empty() && !plane.subnets.empty())
        pv.address_missing = "no NIC of plane " + plane.name + " (" + pv.nic_list() +
                             ") has an address in its subnet";
    }
    auto add_peer = [&](const std::string& p) {
      auto ip = netplane::try_parse_ip(p);
      if (own && ip && *ip == *own) return;
      if (std::find(pv.peers.begin(), pv.peers.end(), p) == pv.peers.end()) pv.peers.push_back(p);
    };
    if (!plane.peers.empty()) {
      for (const auto& p : plane.peers) add_peer(p);
    } else {
      for (const auto& n : profile.nodes) {
        if (node && n.name == node->name) continue;
        auto it = n.addresses.find(plane.name);
        if (it != n.addresses.end()) add_peer(it->second);
      }
    }
    view.planes.push_back(std::move(pv));
  }
  return view;
}

NetReadings read_net(const NodeContext& ctx) {
  NetReadings r;
  r.links = ctx.sources.physical->links();
  r.addresses = ctx.sources.netplane->addresses();
  r.routes = ctx.sources.netplane->routes();
  r.view = build_netplane_view(*ctx.profile, ctx.node, r.links, r.addresses, r.routes);
  return r;
}

}  // namespace hn::probes
