#include "probes/netplane_sysctl_probes.h"

#include <algorithm>
#include <set>

#include "probes/netplane_route_probes.h"
#include "probes/netplane_view.h"
#include "reports/catalog.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace netplane = stack::netplane;

namespace {

using Field = std::optional<int> netplane::Ipv4Conf::*;

struct Effective {
  std::optional<int> all, iface;
  std::optional<int> value() const {
    if (!all && !iface) return std::nullopt;
    return std::max(all.value_or(0), iface.value_or(0));
  }
};

Effective effective(const std::map<std::string, netplane::Ipv4Conf>& conf, const std::string& nic,
                    Field field) {
  Effective e;
  if (auto it = conf.find("all"); it != conf.end()) e.all = it->second.*field;
  if (auto it = conf.find(nic); it != conf.end()) e.iface = it->second.*field;
  return e;
}

std::string text(const std::optional<int>& v) {
  return v ? std::to_string(*v) : "unreadable";
}

reports::Params base(const std::string& nic, const Effective& e) {
  return {{"nic", nic}, {"value", text(e.value())}, {"all", text(e.all)}, {"iface", text(e.iface)}};
}

void judge_rp_filter(const std::string& nic, const Effective& e, const PlaneRoutes* routes,
                     std::vector<Finding>& out) {
  reports::Params p = base(nic, e);
  int v = *e.value();
  p["mode"] = v == 0 ? "off" : v == 2 ? "loose" : "strict";
  out.push_back(
      make_finding("NET-SYSCTL-RP-FILTER", v == 1 ? Status::kWarn : Status::kPass, nic, p));
  if (v != 1 || !routes) return;
  const PlaneView& pv = *routes->plane;
  for (const auto& t : routes->targets) {
    // Strict RPF validates a reply's source with the route back to it, as
    // seen from the address the reply was sent to.
    const netplane::RouteLookup& back = t.bound;
    if (back.ok() && pv.has_nic(back.oif)) continue;
    out.push_back(make_finding("NET-SYSCTL-RP-ASYMMETRIC", Status::kFail, nic,
                               {{"nic", nic},
                                {"plane", pv.plane->name},
                                {"peer", t.dst},
                                {"route_nic", back.ok() && !back.oif.empty() ? back.oif : "none"},
                                {"route", back.describe()}}));
    return;
  }
  out.push_back(make_finding("NET-SYSCTL-RP-ASYMMETRIC", Status::kPass, nic,
                             {{"nic", nic}, {"plane", pv.plane->name}}));
}

}  // namespace

std::vector<Finding> check_plane_sysctls(const NodeContext& ctx) {
  std::vector<Finding> out;
  NetReadings r = read_net(ctx);
  // Plane NICs that carry a global address, in plane order, once each.
  std::vector<std::string> homed;
  for (const auto& pv : r.view.planes)
    for (const auto& nic : pv.nics) {
      bool has_address = std::any_of(r.addresses.begin(), r.addresses.end(), [&](const auto& a) {
        return a.nic == nic && (a.scope.empty() || a.scope == "global");
      });
      if (has_address && std::find(homed.begin(), homed.end(), nic) == homed.end())
        homed.push_back(nic);
    }
  if (homed.size() < 2) return out;
  const auto conf = ctx.sources.netplane->ipv4_conf();
  // Reply paths matter only where rp_filter is strict: look routes up then.
  bool strict = std::any_of(homed.begin(), homed.end(), [&](const std::string& nic) {
    return effective(conf, nic, &netplane::Ipv4Conf::rp_filter).value() == 1;
  });
  std::vector<PlaneRoutes> routes;
  if (strict) routes = lookup_plane_routes(ctx, r);
  for (const auto& nic : homed) {
    const PlaneRoutes* pr = nullptr;
    for (const auto& x : routes)
      if (x.plane->has_nic(nic)) {
        pr = &x;
        break;
      }
    Effective rp = effective(conf, nic, &netplane::Ipv4Conf::rp_filter);
    if (!rp.value()) {
      std::string reason = ctx.sources.live
                               ? "/proc/sys/net/ipv4/conf/" + nic + "/rp_filter is not readable"
                               : "the snapshot holds no IPv4 settings for " + nic;
      out.push_back(make_finding("NET-SYSCTL-RP-FILTER", Status::kSkip, nic,
                                 {{"nic", nic}, {"reason", reason}}));
    } else {
      judge_rp_filter(nic, rp, pr, out);
    }
    Effective ignore = effective(conf, nic, &netplane::Ipv4Conf::arp_ignore);
    if (ignore.value()) {
      int v = *ignore.value();
      out.push_back(make_finding("NET-SYSCTL-ARP-IGNORE",
                                 v == 1 || v == 2 ? Status::kPass : Status::kWarn, nic,
                                 base(nic, ignore)));
    }
    Effective announce = effective(conf, nic, &netplane::Ipv4Conf::arp_announce);
    if (announce.value())
      out.push_back(make_finding("NET-SYSCTL-ARP-ANNOUNCE",
                                 *announce.value() == 2 ? Status::kPass : Status::kWarn, nic,
                                 base(nic, announce)));
  }
  return out;
}

}  // namespace hn::probes
