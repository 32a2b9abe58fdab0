#include "probes/plane_consistency.h"

#include <algorithm>
#include <map>
#include <optional>

#include "probes/netplane_view.h"
#include "probes/node_context.h"
#include "probes/rdma_binding_probes.h"
#include "reports/catalog.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;

namespace {

// One value per node, judged together.
struct Column {
  std::vector<std::pair<std::string, std::string>> values;  // node -> value, in node order
};

// preferred: the profile's expectation, which wins a tie for "majority" (with
// two nodes that differ, the one the profile agrees with is not the odd one).
void judge(const char* code, const std::string& plane, const Column& c,
           const std::optional<int>& preferred, std::vector<Finding>& out) {
  if (c.values.empty()) return;
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> by_value;
  for (const auto& [node, value] : c.values) {
    if (!by_value.count(value)) order.push_back(value);
    by_value[value].push_back(node);
  }
  std::string majority = order.front();
  if (preferred && by_value.count(std::to_string(*preferred)))
    majority = std::to_string(*preferred);
  for (const auto& v : order)
    if (by_value[v].size() > by_value[majority].size()) majority = v;
  std::string values, odd;
  for (const auto& v : order) {
    values += (values.empty() ? "" : "; ") + v + " on " + join_list(by_value[v]);
    if (v != majority)
      for (const auto& n : by_value[v]) odd += (odd.empty() ? "" : ", ") + n;
  }
  Finding f =
      make_finding(code, order.size() == 1 ? Status::kPass : Status::kFail, "plane " + plane,
                   {{"plane", plane},
                    {"value", majority},
                    {"count", std::to_string(c.values.size())},
                    {"values", values},
                    {"majority", majority},
                    {"odd", odd.empty() ? "none" : odd}});
  for (const auto& [node, value] : c.values) f.evidence["node " + node] = value;
  out.push_back(f);
}

std::string mtu_of(const PlaneView& pv, const std::vector<stack::physical::Link>& links) {
  if (pv.nics.empty()) return "no NIC";
  std::vector<std::string> mtus;
  for (const auto& l : links)
    if (pv.has_nic(l.name) &&
        std::find(mtus.begin(), mtus.end(), std::to_string(l.mtu)) == mtus.end())
      mtus.push_back(std::to_string(l.mtu));
  std::string s;
  for (const auto& m : mtus) s += (s.empty() ? "" : "/") + m;
  return s;
}

}  // namespace

std::vector<Finding> check_plane_consistency(const formats::Profile& profile,
                                             const std::vector<NodeReadings>& nodes) {
  std::vector<Finding> out;
  if (!profile.nodes.empty()) {
    std::vector<std::string> missing;
    for (const auto& declared : profile.nodes)
      if (std::none_of(nodes.begin(), nodes.end(),
                       [&](const NodeReadings& n) { return n.spec == &declared; }))
        missing.push_back(declared.name);
    out.push_back(make_finding("NET-XNODE-COVERAGE",
                               missing.empty() ? Status::kPass : Status::kWarn, "nodes",
                               {{"count", std::to_string(profile.nodes.size())},
                                {"missing_count", std::to_string(missing.size())},
                                {"missing", node_name_list(missing)}}));
  }
  std::vector<NetplaneView> views;
  for (const auto& n : nodes)
    views.push_back(build_netplane_view(profile, n.spec, n.links, n.addresses, n.routes));
  for (size_t p = 0; p < profile.planes.size(); ++p) {
    const auto& plane = profile.planes[p];
    Column mtu, gid_index, rdma_mtu;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const PlaneView& pv = views[i].planes[p];
      mtu.values.emplace_back(nodes[i].name, mtu_of(pv, nodes[i].links));
      if (!plane.rdma) continue;
      std::string index = "no RDMA", active = "no RDMA";
      if (nodes[i].rdma.supported && !pv.nics.empty()) {
        PlaneRdma rd = find_plane_rdma(nodes[i].rdma, pv, nodes[i].links);
        index = active = "no port";
        if (rd.port) {
          active = std::to_string(rd.port->active_mtu);
          const auto* gid = pv.address.empty()
                                ? nullptr
                                : find_plane_gid(*rd.port, plane.rdma->gid_type, pv.address);
          index = gid ? std::to_string(gid->index) : "no GID for " + pv.address;
        }
      }
      gid_index.values.emplace_back(nodes[i].name, index);
      rdma_mtu.values.emplace_back(nodes[i].name, active);
    }
    judge("NET-XNODE-MTU", plane.name, mtu, plane.mtu, out);
    if (plane.rdma) {
      judge("NET-XNODE-GID-INDEX", plane.name, gid_index, plane.rdma->gid_index, out);
      judge("NET-XNODE-RDMA-MTU", plane.name, rdma_mtu, plane.rdma->mtu, out);
    }
  }
  return out;
}

}  // namespace hn::probes
