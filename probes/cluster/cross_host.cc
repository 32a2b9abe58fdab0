#include "probes/cluster/cross_host.h"

#include <map>
#include <set>

#include "probes/netplane_view.h"
#include "probes/node_context.h"
#include "reports/catalog.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;

namespace {

NetplaneView view_of(const formats::Profile& profile, const NodeReadings& h) {
  return build_netplane_view(profile, h.spec, h.links, h.addresses, h.routes);
}

bool global(const stack::netplane::InterfaceAddress& a) {
  return a.scope.empty() || a.scope == "global";
}

std::string subnet_list(const stack::netplane::Plane& p) {
  std::vector<std::string> s;
  for (const auto& n : p.subnets) s.push_back(n.str());
  return join_list(s);
}

}  // namespace

std::vector<Finding> check_duplicate_addresses(const formats::Profile& profile,
                                               const std::vector<NodeReadings>& hosts) {
  std::vector<Finding> out;
  std::vector<NetplaneView> views;
  for (const auto& h : hosts) views.push_back(view_of(profile, h));
  for (std::size_t pi = 0; pi < profile.planes.size(); ++pi) {
    const std::string& plane = profile.planes[pi].name;
    // address -> the hosts (and NICs) that carry it on a plane NIC
    std::map<std::string, std::vector<std::string>> where;
    std::vector<std::string> order;
    for (std::size_t hi = 0; hi < hosts.size(); ++hi) {
      const NodeReadings& h = hosts[hi];
      const PlaneView& pv = views[hi].planes[pi];
      std::set<std::string> seen;
      for (const auto& a : h.addresses) {
        if (!global(a) || !pv.has_nic(a.nic) || !seen.insert(a.address).second) continue;
        if (!where.count(a.address)) order.push_back(a.address);
        where[a.address].push_back(h.name + " (" + a.nic + ")");
      }
    }
    if (where.empty()) continue;
    bool dup = false;
    for (const auto& addr : order) {
      const auto& on = where[addr];
      if (on.size() < 2) continue;
      dup = true;
      out.push_back(make_finding("NET-XHOST-ADDRESS-DUP", Status::kFail, addr + " plane " + plane,
                                 {{"plane", plane},
                                  {"address", addr},
                                  {"hosts_count", std::to_string(on.size())},
                                  {"members", join_list(on)}}));
    }
    if (!dup)
      out.push_back(make_finding("NET-XHOST-ADDRESS-DUP", Status::kPass, "plane " + plane,
                                 {{"plane", plane}, {"count", std::to_string(where.size())}}));
  }
  return out;
}

std::vector<Finding> check_plane_subnets(const formats::Profile& profile,
                                         const std::vector<NodeReadings>& hosts) {
  std::vector<Finding> out;
  for (const auto& h : hosts) {
    const NetplaneView view = view_of(profile, h);
    for (const auto& pv : view.planes) {
      // A plane known only by its subnet has, by definition, its NICs inside it.
      if (!pv.named || pv.plane->subnets.empty()) continue;
      for (const auto& nic : pv.nics) {
        std::vector<std::string> inside, outside;
        for (const auto& a : h.addresses) {
          if (a.nic != nic || !global(a) || a.family != 4) continue;
          (pv.in_subnets(a.address) ? inside : outside).push_back(a.address);
        }
        if (inside.empty() && outside.empty()) continue;  // NET-PLANE-ADDRESS's case
        const bool ok = !inside.empty();
        Finding f =
            make_finding("NET-XHOST-SUBNET", ok ? Status::kPass : Status::kFail, h.name + " " + nic,
                         {{"plane", pv.plane->name},
                          {"nic", nic},
                          {"address", ok ? inside.front() : join_list(outside)},
                          {"subnets", subnet_list(*pv.plane)}});
        f.host = h.name;
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

std::vector<Finding> check_same_node(const std::vector<NodeReadings>& hosts) {
  std::vector<Finding> out;
  std::map<std::string, std::vector<std::string>> by_node;
  std::vector<std::string> order;
  int identified = 0;
  for (const auto& h : hosts) {
    if (!h.spec) continue;
    ++identified;
    if (!by_node.count(h.spec->name)) order.push_back(h.spec->name);
    by_node[h.spec->name].push_back(h.name);
  }
  if (identified == 0) return out;  // the profile lists no nodes
  bool clash = false;
  for (const auto& node : order) {
    const auto& members = by_node[node];
    if (members.size() < 2) continue;
    clash = true;
    out.push_back(make_finding("CERT-XHOST-SAME-NODE", Status::kFail, "node " + node,
                               {{"node", node},
                                {"count", std::to_string(members.size())},
                                {"members", join_list(members)}}));
  }
  if (!clash)
    out.push_back(make_finding("CERT-XHOST-SAME-NODE", Status::kPass, "job",
                               {{"hosts", std::to_string(identified)}}));
  return out;
}

std::vector<Finding> check_coverage(const formats::Profile& profile,
                                    const std::vector<NodeReadings>& hosts) {
  if (profile.nodes.empty()) return {};
  std::set<std::string> present;
  for (const auto& h : hosts)
    if (h.spec) present.insert(h.spec->name);
  std::vector<std::string> missing;
  for (const auto& n : profile.nodes)
    if (!present.count(n.name)) missing.push_back(n.name);
  Finding f = make_finding("CERT-XHOST-COVERAGE", missing.empty() ? Status::kPass : Status::kWarn,
                           "profile " + profile.source,
                           {{"count", std::to_string(profile.nodes.size())},
                            {"missing_count", std::to_string(missing.size())},
                            {"missing", node_name_list(missing)}});
  return {f};
}

}  // namespace hn::probes::cluster
