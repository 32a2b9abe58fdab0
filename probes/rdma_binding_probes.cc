#include "probes/rdma_binding_probes.h"

#include <algorithm>

#include "reports/catalog.h"
#include "stack/l6_netplane/ip_address.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace physical = stack::physical;
namespace netplane = stack::netplane;

namespace {

bool type_matches(const std::string& want, const std::string& sysfs) {
  if (want == "RoCE v2") return sysfs == "RoCE v2";
  if (want == "RoCE v1") return sysfs == "IB/RoCE v1" || sysfs == "RoCE v1";
  return sysfs == "IB/RoCE v1" || sysfs == "IB";
}

std::string gid_list(const physical::RdmaPort& port) {
  std::vector<std::string> v;
  for (const auto& g : port.gids)
    v.push_back(std::to_string(g.index) + " " + g.gid + " (" + g.type + ")");
  return join_list(v);
}

}  // namespace

bool port_serves_plane(const physical::RdmaPort& port, const PlaneView& plane,
                       const std::vector<physical::Link>& links) {
  auto serves = [&](const std::string& netdev) {
    if (netdev.empty()) return false;
    if (plane.has_nic(netdev)) return true;
    return std::any_of(links.begin(), links.end(), [&](const physical::Link& l) {
      return plane.has_nic(l.name) && l.kind == "vlan" && l.parent == netdev;
    });
  };
  if (serves(port.netdev)) return true;
  return std::any_of(port.gids.begin(), port.gids.end(),
                     [&](const physical::RdmaGid& g) { return serves(g.netdev); });
}

const physical::RdmaGid* find_plane_gid(const physical::RdmaPort& port, const std::string& gid_type,
                                        const std::string& address) {
  auto want = netplane::try_parse_ip(address);
  if (!want) return nullptr;
  netplane::IpAddress mapped = *want;
  if (want->family == 4) {
    // ::ffff:a.b.c.d, the form RoCE uses for an IPv4 address.
    mapped = netplane::IpAddress{};
    mapped.family = 6;
    mapped.bytes[10] = mapped.bytes[11] = 0xff;
    std::copy(want->bytes.begin(), want->bytes.begin() + 4, mapped.bytes.begin() + 12);
  }
  for (const auto& g : port.gids) {
    auto gid = netplane::try_parse_ip(g.gid);
    if (gid && *gid == mapped && type_matches(gid_type, g.type)) return &g;
  }
  return nullptr;
}

PlaneRdma find_plane_rdma(const physical::RdmaInventory& inv, const PlaneView& plane,
                          const std::vector<physical::Link>& links) {
  PlaneRdma out;
  const auto& want = *plane.plane->rdma;
  for (const auto& d : inv.devices) {
    if (!want.device.empty() && d.name != want.device) continue;
    auto port = std::find_if(d.ports.begin(), d.ports.end(),
                             [&](const physical::RdmaPort& p) { return p.port == want.port; });
    if (!want.device.empty()) {
      out.device = &d;
      out.port = port == d.ports.end() ? nullptr : &*port;
      return out;
    }
    if (port != d.ports.end() && port_serves_plane(*port, plane, links)) {
      out.device = &d;
      out.port = &*port;
      return out;
    }
  }
  return out;
}

std::vector<Finding> check_rdma_binding(const NodeContext& ctx) {
  std::vector<Finding> out;
  NetReadings r;
  bool any = std::any_of(ctx.profile->planes.begin(), ctx.profile->planes.end(),
                         [](const auto& p) { return p.rdma.has_value(); });
  if (!any) return out;
  r = read_net(ctx);
  const physical::RdmaInventory inv = ctx.sources.physical->rdma();
  for (const auto& pv : r.view.planes) {
    // A plane without its NIC here is reported once, by HW-NIC-PRESENT (a
    // named NIC) or NET-PLANE-ADDRESS (a plane declared only by subnet).
    if (!pv.plane->rdma || pv.nics.empty()) continue;
    const auto& want = *pv.plane->rdma;
    const std::string& plane = pv.plane->name;
    std::string label = want.device.empty() ? "rdma (" + plane + ")" : want.device;
    if (!inv.supported) {
      out.push_back(make_finding("NET-RDMA-NETDEV", Status::kSkip, label,
                                 {{"plane", plane}, {"reason", inv.unsupported_reason}}));
      continue;
    }
    PlaneRdma rd = find_plane_rdma(inv, pv, r.links);
    reports::Params p{{"plane", plane},
                      {"plane_nic", pv.nic_list()},
                      {"port", std::to_string(want.port)},
                      {"device", rd.device ? rd.device->name : label},
                      {"netdev", rd.port && !rd.port->netdev.empty() ? rd.port->netdev : "none"}};
    if (!rd.device || !rd.port) {
      if (!want.device.empty()) {
        p["reason"] = "device " + want.device + " port " + std::to_string(want.port) +
                      " is absent (HW-RDMA-DEVICE / HW-RDMA-PORT report it)";
        out.push_back(make_finding("NET-RDMA-NETDEV", Status::kSkip, label, p));
      } else {
        out.push_back(make_finding("NET-RDMA-NETDEV", Status::kFail, label, p));
      }
      continue;
    }
    std::string entity = rd.device->name + "/" + std::to_string(rd.port->port);
    out.push_back(make_finding(
        "NET-RDMA-NETDEV", port_serves_plane(*rd.port, pv, r.links) ? Status::kPass : Status::kFail,
        entity, p));
    p["gid_type"] = want.gid_type;
    if (!pv.address_missing.empty()) {
      // The GID table follows the netdev's addresses: a missing address is
      // NET-PLANE-ADDRESS's FAIL, not a second one here.
      p["reason"] = pv.address_missing + " (see NET-PLANE-ADDRESS)";
      out.push_back(make_finding("NET-RDMA-GID", Status::kSkip, entity, p));
    } else if (pv.address.empty()) {
      p["reason"] = "no address of plane " + plane + " is known on this node";
      out.push_back(make_finding("NET-RDMA-GID", Status::kSkip, entity, p));
    } else {
      p["address"] = pv.address;
      const physical::RdmaGid* gid = find_plane_gid(*rd.port, want.gid_type, pv.address);
      if (!gid) {
        p["gids"] = gid_list(*rd.port);
        out.push_back(make_finding("NET-RDMA-GID", Status::kFail, entity, p));
      } else {
        p["index"] = std::to_string(gid->index);
        p["netdev"] = gid->netdev.empty() ? p["netdev"] : gid->netdev;
        out.push_back(make_finding("NET-RDMA-GID", Status::kPass, entity, p));
        if (want.gid_index) {
          p["expected"] = std::to_string(*want.gid_index);
          out.push_back(make_finding("NET-RDMA-GID-INDEX",
                                     gid->index == *want.gid_index ? Status::kPass : Status::kFail,
                                     entity, p));
        }
      }
    }
    if (want.mtu) {
      p["active_mtu"] = std::to_string(rd.port->active_mtu);
      p["expected"] = std::to_string(*want.mtu);
      out.push_back(make_finding("NET-RDMA-MTU",
                                 rd.port->active_mtu == *want.mtu ? Status::kPass : Status::kFail,
                                 entity, p));
    }
  }
  return out;
}

}  // namespace hn::probes
