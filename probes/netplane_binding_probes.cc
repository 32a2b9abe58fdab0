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

// The command that gives plane NIC l the VLAN the plane expects. A virtual
// link with a parent (a vlan with the wrong id or parent, a macvlan) is
// replaced under its own name. A physical NIC cannot become a VLAN link, so a
// VLAN link is added on the parent (the profile's, else that NIC), and the
// plane's nic must then name the new link.
std::string vlan_command(const netplane::Plane& p, const stack::physical::Link& l) {
  const std::string id = std::to_string(*p.vlan);
  std::string parent = !p.vlan_parent.empty() ? p.vlan_parent : l.parent;
  if ((l.kind.empty() && l.parent.empty()) || parent.empty()) {
    if (parent.empty()) parent = l.name;
    std::string name = parent + "." + id;
    if (name.size() > 15) name = "vlan" + id;  // IFNAMSIZ - 1
    return "ip link add link " + parent + " name " + name + " type vlan id " + id;
  }
  return "ip link del " + l.name + " && ip link add link " + parent + " name " + l.name +
         " type vlan id " + id;
}

void check_vlan(const PlaneView& pv, const std::vector<stack::physical::Link>& links,
                std::vector<Finding>& out) {
  const netplane::Plane& p = *pv.plane;
  if (!p.vlan) return;
  for (const auto& l : links) {
    if (!pv.has_nic(l.name)) continue;
    // The parent the plane expects: the profile's, else the one this VLAN
    // link already has; a NIC that is no VLAN link has none to name.
    std::string expected_parent = !p.vlan_parent.empty()                  ? p.vlan_parent
                                  : l.kind == "vlan" && !l.parent.empty() ? l.parent
                                                                          : "its parent NIC";
    bool ok = l.kind == "vlan" && l.vlan_id == *p.vlan &&
              (p.vlan_parent.empty() || l.parent == p.vlan_parent);
    reports::Params params{{"nic", l.name},
                           {"plane", p.name},
                           {"kind", l.kind.empty() ? "none" : l.kind},
                           {"vlan_id", l.vlan_id ? std::to_string(*l.vlan_id) : "none"},
                           {"parent", or_none(l.parent)},
                           {"expected_id", std::to_string(*p.vlan)},
                           {"expected_parent", expected_parent}};
    if (!ok) params["command"] = vlan_command(p, l);
    out.push_back(make_finding("NET-VLAN", ok ? Status::kPass : Status::kFail, l.name, params));
  }
}

// Every global address of the node, for a plane none of whose NICs is here.
std::vector<std::string> all_nics(const std::vector<netplane::InterfaceAddress>& addrs) {
  std::vector<std::string> v;
  for (const auto& a : addrs)
    if (std::find(v.begin(), v.end(), a.nic) == v.end()) v.push_back(a.nic);
  return v;
}

std::string expected_address(const PlaneView& pv) {
  return pv.address_declared ? pv.address : "an address in " + subnet_list(*pv.plane);
}

// A plane declared only by subnet that no NIC here serves: there is no NIC
// name for L7 to look for, so this is the one finding that reports it.
void check_unserved(const PlaneView& pv, const std::vector<netplane::InterfaceAddress>& addrs,
                    std::vector<Finding>& out) {
  const std::string& name = pv.plane->name;
  out.push_back(make_finding("NET-PLANE-ADDRESS", Status::kFail, "plane " + name,
                             {{"plane", name},
                              {"expected", expected_address(pv)},
                              {"searched", "any NIC of this node"},
                              {"target", "the NIC meant for plane " + name},
                              {"found", nic_addresses(addrs, all_nics(addrs))},
                              {"unresolved", pv.unresolved_reason}}));
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
  out.push_back(make_finding("NET-PLANE-ADDRESS", Status::kFail, first_nic,
                             {{"nic", first_nic},
                              {"plane", p.name},
                              {"expected", expected_address(pv)},
                              {"searched", pv.nic_list()},
                              {"target", pv.nic_list()},
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
  // PASS names the subnets the plane NICs really carry; a subnet that is on
  // no NIC at all is a missing address (NET-PLANE-ADDRESS), not a pass.
  std::vector<std::string> carried;
  for (const auto& s : p.subnets)
    if (std::any_of(addrs.begin(), addrs.end(), [&](const auto& a) {
          auto ip = netplane::try_parse_ip(a.address);
          return pv.has_nic(a.nic) && ip && s.contains(*ip);
        }))
      carried.push_back(s.str());
  if (!subnet_failed && !p.subnets.empty()) {
    if (carried.empty())
      out.push_back(make_finding(
          "NET-PLANE-SUBNET", Status::kSkip, entity,
          {{"subnet", subnet_list(p)},
           {"plane", p.name},
           {"reason", "plane " + p.name + "'s subnet " + subnet_list(p) +
                          " is configured on no NIC of this node (see NET-PLANE-ADDRESS)"}}));
    else
      out.push_back(make_finding(
          "NET-PLANE-SUBNET", Status::kPass, entity,
          {{"subnet", join_list(carried)}, {"plane", p.name}, {"plane_nic", pv.nic_list()}}));
  }
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
    if (pv.nics.empty()) {
      // A plane that names its NIC: L7 HW-NIC-PRESENT reports it missing (or
      // why its name could not be resolved). One declared only by subnet has
      // nothing for L7 to look for, so it is reported here.
      if (!pv.named) check_unserved(pv, r.addresses, out);
      continue;
    }
    check_vlan(pv, r.links, out);
    check_address(pv, r.addresses, out);
    check_misbinding(r.view, pv, r.addresses, out);
  }
  check_shared(r.view, out);
  return out;
}

}  // namespace hn::probes
