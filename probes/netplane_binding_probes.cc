#include "probes/netplane_binding_probes.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "probes/netplane_view.h"
#include "reports/catalog.h"
#include "stack/l6_netplane/ip_address.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace netplane = stack::netplane;

namespace {

std::string or_none(const std::string& s) {
  return s.empty() ? "none" : s;
}

bool same_ip(const std::string& a, const std::string& b) {
  auto x = netplane::try_parse_ip(a), y = netplane::try_parse_ip(b);
  return x && y && *x == *y;
}

std::string subnet_list(const netplane::Plane& p) {
  std::vector<std::string> v;
  for (const auto& s : p.subnets) v.push_back(s.str());
  return join_list(v);
}

// The subnet of the plane that holds address; for a plane without subnets,
// the network the address is configured with.
std::string subnet_of(const netplane::Plane& p, const std::string& address, int prefix_len) {
  auto ip = netplane::try_parse_ip(address);
  for (const auto& s : p.subnets)
    if (ip && s.contains(*ip)) return s.str();
  if (!p.subnets.empty()) return p.subnets.front().str();
  try {
    return netplane::parse_prefix(address + "/" + std::to_string(prefix_len), true).str();
  } catch (const std::invalid_argument&) {
    return address;
  }
}

std::string nic_addresses(const std::vector<netplane::InterfaceAddress>& all,
                          const std::vector<std::string>& nics) {
  std::vector<std::string> v;
  for (const auto& a : all)
    for (const auto& n : nics)
      if (a.nic == n && a.scope != "link" && a.scope != "host")
        v.push_back(a.address + "/" + std::to_string(a.prefix_len) + " on " + a.nic);
  return join_list(v);
}

void check_vlan(const PlaneView& pv, const std::vector<stack::physical::Link>& links,
                std::vector<Finding>& out) {
  const netplane::Plane& p = *pv.plane;
  if (!p.vlan) return;
  for (const auto& l : links) {
    if (!pv.has_nic(l.name)) continue;
    std::string expected_parent = !p.vlan_parent.empty() ? p.vlan_parent
                                  : !l.parent.empty()    ? l.parent
                                                         : "<parent NIC>";
    bool ok = l.kind == "vlan" && l.vlan_id == *p.vlan &&
              (p.vlan_parent.empty() || l.parent == p.vlan_parent);
    out.push_back(make_finding("NET-VLAN", ok ? Status::kPass : Status::kFail, l.name,
                               {{"nic", l.name},
                                {"plane", p.name},
                                {"kind", l.kind.empty() ? "none" : l.kind},
                                {"vlan_id", l.vlan_id ? std::to_string(*l.vlan_id) : "none"},
                                {"parent", or_none(l.parent)},
                                {"expected_id", std::to_string(*p.vlan)},
                                {"expected_parent", expected_parent}}));
  }
}

void check_address(const PlaneView& pv, const std::vector<netplane::InterfaceAddress>& addrs,
                   std::vector<Finding>& out) {
  const netplane::Plane& p = *pv.plane;
  const std::string first_nic = pv.nics.front();
  if (!pv.address_declared && p.subnets.empty() && pv.address.empty()) {
    out.push_back(make_finding("NET-PLANE-ADDRESS", Status::kSkip, first_nic,
                               {{"nic", first_nic},
                                {"plane", p.name},
                                {"reason", "plane " + p.name +
                                               " declares no subnet and this node "
                                               "no address for it"}}));
    return;
  }
  for (const auto& a : addrs) {
    if (!pv.has_nic(a.nic) || !same_ip(a.address, pv.address)) continue;
    out.push_back(make_finding("NET-PLANE-ADDRESS", Status::kPass, a.nic,
                               {{"nic", a.nic},
                                {"plane", p.name},
                                {"address", a.address},
                                {"prefix_len", std::to_string(a.prefix_len)},
                                {"subnet", subnet_of(p, a.address, a.prefix_len)}}));
    return;
  }
  std::string expected = pv.address_declared ? pv.address : "an address in " + subnet_list(p);
  out.push_back(make_finding("NET-PLANE-ADDRESS", Status::kFail, first_nic,
                             {{"nic", first_nic},
                              {"plane", p.name},
                              {"expected", expected},
                              {"found", nic_addresses(addrs, pv.nics)}}));
}

struct Misbinding {
  const netplane::InterfaceAddress* addr;
  bool exact;  // the plane's own address (else another address in its subnet)
};

// Addresses of the plane (its own, or in its subnets) on NICs that are not the plane's.
std::vector<Misbinding> foreign(const PlaneView& pv,
                                const std::vector<netplane::InterfaceAddress>& addrs) {
  std::vector<Misbinding> out;
  for (const auto& a : addrs) {
    if (pv.has_nic(a.nic) || a.nic == "lo") continue;
    bool exact = !pv.address.empty() && same_ip(a.address, pv.address);
    if (exact || pv.in_subnets(a.address)) out.push_back({&a, exact});
  }
  return out;
}

const PlaneView* management_plane_of(const NetplaneView& v, const std::string& nic) {
  for (const auto* m : v.of_type(netplane::PlaneType::kManagement))
    if (m->has_nic(nic)) return m;
  return nullptr;
}

void check_misbinding(const NetplaneView& view, const PlaneView& pv,
                      const std::vector<netplane::InterfaceAddress>& addrs,
                      std::vector<Finding>& out) {
  const netplane::Plane& p = *pv.plane;
  bool exact_elsewhere = false, subnet_failed = false;
  std::set<std::string> mgmt_failed;
  for (const auto& m : foreign(pv, addrs)) {
    const auto& a = *m.addr;
    reports::Params params{{"address", a.address},
                           {"prefix_len", std::to_string(a.prefix_len)},
                           {"plane", p.name},
                           {"nic", a.nic},
                           {"nic_plane", view.planes_of(a.nic)},
                           {"plane_nic", pv.nic_list()},
                           {"subnet", subnet_of(p, a.address, a.prefix_len)}};
    // A parameter-plane address on the management NIC has its own code, so
    // the most dangerous misbinding is never reported as a generic one.
    const PlaneView* mgmt =
        pv.is(netplane::PlaneType::kParameter) ? management_plane_of(view, a.nic) : nullptr;
    exact_elsewhere = exact_elsewhere || m.exact;
    if (mgmt) {
      params["mgmt_plane"] = mgmt->plane->name;
      params["mgmt_nic"] = a.nic;
      out.push_back(make_finding("NET-PLANE-PARAM-ON-MGMT", Status::kFail, a.nic, params));
      mgmt_failed.insert(mgmt->plane->name);
    } else if (m.exact) {
      out.push_back(make_finding("NET-PLANE-BINDING", Status::kFail, a.nic, params));
    } else {
      out.push_back(make_finding("NET-PLANE-SUBNET", Status::kFail, a.nic, params));
      subnet_failed = true;
    }
  }
  const std::string& entity = pv.nics.front();
  bool on_plane = std::any_of(addrs.begin(), addrs.end(), [&](const auto& a) {
    return pv.has_nic(a.nic) && same_ip(a.address, pv.address);
  });
  // PASS only when the address is where it belongs and nowhere else; an
  // address that is nowhere is NET-PLANE-ADDRESS's FAIL.
  if (!exact_elsewhere && on_plane)
    out.push_back(make_finding("NET-PLANE-BINDING", Status::kPass, entity,
                               {{"address", pv.address},
                                {"prefix_len", std::to_string(pv.address_prefix_len)},
                                {"plane", p.name},
                                {"plane_nic", pv.nic_list()}}));
  if (!subnet_failed && !p.subnets.empty())
    out.push_back(make_finding(
        "NET-PLANE-SUBNET", Status::kPass, entity,
        {{"subnet", subnet_list(p)}, {"plane", p.name}, {"plane_nic", pv.nic_list()}}));
  if (!pv.is(netplane::PlaneType::kParameter)) return;
  for (const auto* mgmt : view.of_type(netplane::PlaneType::kManagement)) {
    if (mgmt->nics.empty() || mgmt_failed.count(mgmt->plane->name)) continue;
    out.push_back(make_finding(
        "NET-PLANE-PARAM-ON-MGMT", Status::kPass, mgmt->nics.front(),
        {{"plane", p.name}, {"mgmt_plane", mgmt->plane->name}, {"mgmt_nic", mgmt->nic_list()}}));
  }
}

void check_shared(const NetplaneView& view, std::vector<Finding>& out) {
  std::vector<std::string> names;
  bool shared = false;
  for (size_t i = 0; i < view.planes.size(); ++i) {
    const PlaneView& a = view.planes[i];
    if (a.nics.empty()) continue;
    names.push_back(a.plane->name);
    for (size_t j = i + 1; j < view.planes.size(); ++j)
      for (const auto& nic : a.nics)
        if (view.planes[j].has_nic(nic)) {
          shared = true;
          out.push_back(make_finding("NET-PLANE-SHARED-NIC", Status::kFail, nic,
                                     {{"nic", nic},
                                      {"plane", a.plane->name},
                                      {"other_plane", view.planes[j].plane->name}}));
        }
  }
  if (!shared && names.size() > 1)
    out.push_back(make_finding("NET-PLANE-SHARED-NIC", Status::kPass, "planes",
                               {{"planes", join_list(names)}}));
}

}  // namespace

std::vector<Finding> check_plane_binding(const NodeContext& ctx) {
  std::vector<Finding> out;
  NetReadings r = read_net(ctx);
  for (const auto& pv : r.view.planes) {
    if (pv.nics.empty()) continue;  // L7 HW-NIC-PRESENT reports the missing NIC
    check_vlan(pv, r.links, out);
    check_address(pv, r.addresses, out);
    check_misbinding(r.view, pv, r.addresses, out);
  }
  check_shared(r.view, out);
  return out;
}

}  // namespace hn::probes
