#include "probes/netplane_route_probes.h"

#include <algorithm>

#include "reports/catalog.h"
#include "stack/l6_netplane/ip_address.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace netplane = stack::netplane;

namespace {

// Off-plane destinations for the policy check: documentation ranges that no
// plane should contain (RFC 5737, RFC 3849).
constexpr const char* kOffPlaneV4[] = {"198.51.100.1", "203.0.113.1", "192.0.2.1"};
constexpr const char* kOffPlaneV6 = "2001:db8::1";

bool inside_any_plane(const NetplaneView& view, const std::string& address) {
  return std::any_of(view.planes.begin(), view.planes.end(),
                     [&](const PlaneView& p) { return p.in_subnets(address); });
}

// Whether the plane has a default route of its own (in any table), i.e. it
// expects to reach other networks through its own gateway. A route to one
// specific network through the plane needs no source rule: its prefix wins.
bool has_own_gateway(const PlaneView& pv, const std::vector<netplane::Route>& routes) {
  return std::any_of(routes.begin(), routes.end(), [&](const netplane::Route& r) {
    return r.table != 255 && r.dst == "default" && pv.has_nic(r.oif);
  });
}

std::string off_plane_target(const NetplaneView& view, const PlaneView& pv) {
  auto own = netplane::try_parse_ip(pv.address);
  if (own && own->family == 6) return kOffPlaneV6;
  for (const char* a : kOffPlaneV4)
    if (!inside_any_plane(view, a)) return a;
  return "";
}

reports::Params route_params(const PlaneView& pv, const netplane::RouteLookup& l) {
  return {{"plane", pv.plane->name},
          {"nic", l.ok() && !l.oif.empty() ? l.oif : "none"},
          {"source", l.ok() && !l.src.empty() ? l.src : "none"},
          {"route", l.describe()},
          {"expected_nic", pv.nic_list()},
          {"expected_source", pv.address.empty() ? "any" : pv.address}};
}

// The source is the plane's: its address, or for a target of the other
// family an address in the plane subnets. Without any address (a plane with
// neither subnet nor declared address, whose NIC has none) anything goes.
bool plane_source(const PlaneView& pv, const std::string& src) {
  if (pv.address.empty()) return true;
  auto s = netplane::try_parse_ip(src), own = netplane::try_parse_ip(pv.address);
  if (s && own && s->family != own->family) return pv.in_subnets(src);
  return same_ip(src, pv.address);
}

bool egresses_plane(const PlaneView& pv, const netplane::RouteLookup& l) {
  return l.ok() && pv.has_nic(l.oif) && plane_source(pv, l.src);
}

// The plane's own subnet is connected to its NIC: reached on-link (a gateway
// means the subnet is routed elsewhere) from a plane address.
bool reaches_subnet(const PlaneView& pv, const netplane::RouteLookup& l) {
  return egresses_plane(pv, l) && l.gateway.empty() && !pv.address.empty();
}

// The other planes whose NICs carry this lookup's egress NIC.
std::string owner_of(const NetplaneView& view, const PlaneView& pv,
                     const netplane::RouteLookup& l) {
  if (!l.ok() || l.oif.empty()) return "no plane";
  return view.planes_of(l.oif, &pv);
}

void check_policy(const NetplaneView& view, const PlaneRoutes& pr, std::vector<Finding>& out) {
  const PlaneView& pv = *pr.plane;
  if (pv.address.empty()) return;
  const PlaneRoutes::Target* failed = nullptr;
  const PlaneRoutes::Target* steered = nullptr;
  for (const auto& t : pr.targets) {
    if (!t.routed) continue;
    // Only where unbound traffic would leave through another plane's route.
    if (egresses_plane(pv, t.unbound)) continue;
    if (egresses_plane(pv, t.bound)) {
      if (!steered) steered = &t;
    } else if (t.bound.ok() && pv.has_nic(t.bound.oif)) {
      // On the plane's own NIC with another source: no other plane's route
      // is involved, and NET-ROUTE-PEER reports the source.
      continue;
    } else if (!failed) {
      failed = &t;
    }
  }
  if (!failed && !steered) return;
  const PlaneRoutes::Target& t = failed ? *failed : *steered;
  reports::Params p = route_params(pv, t.bound);
  p["address"] = pv.address;
  p["target"] = t.dst;
  p["other_plane"] = owner_of(view, pv, t.bound);
  p["route"] = t.bound.describe();
  out.push_back(
      make_finding("NET-ROUTE-POLICY", failed ? Status::kFail : Status::kPass, pv.nics.front(), p));
}

// At most this many failing peers per plane get a finding of their own.
constexpr size_t kMaxPeerFailures = 16;

// "10.10.0.2", or "31 peers (10.10.0.2, 10.10.0.3, 10.10.0.4, ...)".
std::string peer_summary(const std::vector<std::string>& peers) {
  if (peers.size() == 1) return peers.front();
  std::string s = std::to_string(peers.size()) + " peers (";
  for (size_t i = 0; i < peers.size() && i < 3; ++i) s += (i ? ", " : "") + peers[i];
  return s + (peers.size() > 3 ? ", ...)" : ")");
}

}  // namespace

std::string subnet_probe_address(const netplane::IpPrefix& prefix, const std::string& avoid) {
  int host_bits = prefix.address.bits() - prefix.length;
  if (host_bits < 2) return "";
  netplane::IpAddress a = prefix.address;
  // All host bits set except the last: the highest address that is not the
  // IPv4 broadcast address.
  for (int bit = 0; bit < host_bits; ++bit) {
    int pos = prefix.address.bits() - 1 - bit;
    a.bytes[static_cast<size_t>(pos / 8)] |= static_cast<std::uint8_t>(0x80 >> (pos % 8));
  }
  a.bytes[static_cast<size_t>(a.bits() / 8 - 1)] &= 0xfe;
  if (a.str() == avoid) a.bytes[static_cast<size_t>(a.bits() / 8 - 1)] ^= 0x03;  // ...fe -> ...fd
  return a.str();
}

std::vector<PlaneRoutes> lookup_plane_routes(const NodeContext& ctx, const NetReadings& r) {
  std::vector<PlaneRoutes> planes;
  std::vector<netplane::RouteQuery> queries;
  for (const auto& pv : r.view.planes) {
    // Without its NIC or its address here the plane has no route to judge:
    // check_plane_routes skips it, pointing at NET-PLANE-ADDRESS.
    if (pv.nics.empty() || !pv.address_missing.empty()) continue;
    PlaneRoutes pr;
    pr.plane = &pv;
    auto add = [&](const std::string& dst, const std::string& subnet) {
      PlaneRoutes::Target t;
      t.dst = dst;
      t.subnet = subnet;
      t.routed = subnet.empty() && !pv.in_subnets(dst);
      pr.targets.push_back(t);
    };
    for (const auto& peer : pv.peers) add(peer, "");
    for (const auto& s : pv.plane->subnets)
      if (std::string probe = subnet_probe_address(s, pv.address); !probe.empty())
        add(probe, s.str());
    if (!pv.address.empty() && has_own_gateway(pv, r.routes))
      if (std::string off = off_plane_target(r.view, pv); !off.empty()) add(off, "");
    // Bound lookups need the address to be ours (the kernel refuses an IPv4
    // source it does not have) and of the target's family; otherwise the
    // unbound lookup is judged, against the plane address as expected source.
    auto own = netplane::try_parse_ip(pv.address);
    bool local = own && std::any_of(r.addresses.begin(), r.addresses.end(),
                                    [&](const auto& a) { return same_ip(a.address, pv.address); });
    for (auto& t : pr.targets) {
      auto dst = netplane::try_parse_ip(t.dst);
      t.bindable = local && dst && dst->family == own->family;
    }
    planes.push_back(std::move(pr));
  }
  // Ask only what is judged: the bound lookup of every target, and the
  // unbound one where the policy check compares both (routed targets) or
  // where nothing can be bound. Then, for the few targets that fail, the
  // unbound lookup too, as evidence.
  auto ask = [&](bool unbound_pass) {
    std::vector<netplane::RouteQuery> queries;
    std::vector<netplane::RouteLookup*> into;
    for (auto& pr : planes)
      for (auto& t : pr.targets) {
        bool need_unbound = unbound_pass
                                ? t.bindable && !t.routed && !egresses_plane(*pr.plane, t.bound)
                                : !t.bindable || t.routed;
        if (!unbound_pass && t.bindable) {
          queries.push_back({t.dst, pr.plane->address});
          into.push_back(&t.bound);
        }
        if (need_unbound) {
          queries.push_back({t.dst, ""});
          into.push_back(&t.unbound);
        }
      }
    std::vector<netplane::RouteLookup> answers = ctx.sources.netplane->route_get(queries);
    for (size_t i = 0; i < into.size(); ++i) *into[i] = answers.at(i);
  };
  ask(false);
  for (auto& pr : planes)
    for (auto& t : pr.targets)
      if (!t.bindable) t.bound = t.unbound;
  ask(true);
  return planes;
}

std::vector<Finding> check_plane_routes(const NodeContext& ctx) {
  std::vector<Finding> out;
  NetReadings r = read_net(ctx);
  std::vector<PlaneRoutes> planes = lookup_plane_routes(ctx, r);
  for (const auto& pv : r.view.planes) {
    if (pv.nics.empty() || pv.address_missing.empty()) continue;
    // One missing address is NET-PLANE-ADDRESS's FAIL; every route from it
    // would fail too and say nothing new.
    const std::string reason = pv.address_missing + " (see NET-PLANE-ADDRESS)";
    if (!pv.peers.empty())
      out.push_back(make_finding("NET-ROUTE-PEER", Status::kSkip, "plane " + pv.plane->name,
                                 {{"plane", pv.plane->name}, {"reason", reason}}));
    for (const auto& s : pv.plane->subnets)
      out.push_back(
          make_finding("NET-ROUTE-SUBNET", Status::kSkip, s.str(),
                       {{"plane", pv.plane->name}, {"subnet", s.str()}, {"reason", reason}}));
  }
  for (const auto& pr : planes) {
    const PlaneView& pv = *pr.plane;
    // Passing peers are summarised per winning route (a large cluster has
    // thousands); each failing peer is its own finding, up to a cap.
    std::vector<std::pair<const netplane::RouteLookup*, std::vector<std::string>>> passed;
    std::vector<const PlaneRoutes::Target*> failed;
    for (const auto& t : pr.targets) {
      const netplane::RouteLookup& l = t.bound;
      bool ok = egresses_plane(pv, l);
      if (!t.subnet.empty()) {
        reports::Params p = route_params(pv, l);
        p["subnet"] = t.subnet;
        p["hop"] = !l.ok()             ? "no route"
                   : l.gateway.empty() ? "on-link"
                                       : "through gateway " + l.gateway;
        ok = reaches_subnet(pv, l);
        Finding f =
            make_finding("NET-ROUTE-SUBNET", ok ? Status::kPass : Status::kFail, t.subnet, p);
        f.evidence["probe_address"] = t.dst;
        out.push_back(f);
        continue;
      }
      // Off-plane probe addresses exist only for the policy check.
      if (std::find(pv.peers.begin(), pv.peers.end(), t.dst) == pv.peers.end()) continue;
      if (!ok) {
        failed.push_back(&t);
        continue;
      }
      auto group = std::find_if(passed.begin(), passed.end(), [&](const auto& g) {
        return g.first->oif == l.oif && g.first->src == l.src && g.first->table == l.table &&
               g.first->route_dst == l.route_dst && g.first->gateway == l.gateway;
      });
      if (group == passed.end())
        passed.push_back({&l, {t.dst}});
      else
        group->second.push_back(t.dst);
    }
    for (size_t i = 0; i < failed.size() && i < kMaxPeerFailures; ++i) {
      const auto& t = *failed[i];
      reports::Params p = route_params(pv, t.bound);
      p["peer"] = t.dst;
      Finding f = make_finding("NET-ROUTE-PEER", Status::kFail, t.dst, p);
      f.evidence["unbound_route"] = t.unbound.describe();
      out.push_back(f);
    }
    if (failed.size() > kMaxPeerFailures) {
      const auto& t = *failed[kMaxPeerFailures];
      reports::Params p = route_params(pv, t.bound);
      p["peer"] =
          std::to_string(failed.size() - kMaxPeerFailures) + " more peers (" + t.dst + ", ...)";
      out.push_back(make_finding("NET-ROUTE-PEER", Status::kFail, "plane " + pv.plane->name, p));
    }
    for (const auto& [lookup, peers] : passed) {
      reports::Params p = route_params(pv, *lookup);
      p["peer"] = peer_summary(peers);
      Finding f = make_finding("NET-ROUTE-PEER", Status::kPass, "plane " + pv.plane->name, p);
      f.evidence["peers"] = std::to_string(peers.size());
      out.push_back(f);
    }
    check_policy(r.view, pr, out);
  }
  return out;
}

}  // namespace hn::probes
