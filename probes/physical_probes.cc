#include "probes/physical_probes.h"

#include <algorithm>
#include <cstdio>

#include "probes/netplane_view.h"
#include "probes/plane_nics.h"
#include "probes/rdma_binding_probes.h"
#include "reports/catalog.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace physical = stack::physical;

namespace {

std::string fmt(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string join_names(const std::vector<physical::Link>& links) {
  std::string s;
  for (const auto& l : links) s += (s.empty() ? "" : ", ") + l.name;
  return s.empty() ? "none" : s;
}

// "/dev/nvidia3" is a device node for prefix "nvidia"; "/dev/nvidiactl" is not.
bool is_device_node(const std::string& path, const std::string& prefix) {
  std::string base = path.substr(path.rfind('/') + 1);
  if (base.size() <= prefix.size() || base.compare(0, prefix.size(), prefix) != 0) return false;
  return std::all_of(base.begin() + static_cast<long>(prefix.size()), base.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

void check_one_nic(const stack::netplane::Plane& plane, const physical::Link& link,
                   std::vector<Finding>& out) {
  reports::Params base{{"nic", link.name}, {"plane", plane.name}};
  out.push_back(make_finding("HW-NIC-PRESENT", Status::kPass, link.name, base));

  reports::Params st = base;
  st["admin"] = link.admin_up ? "up" : "down";
  st["oper_state"] = link.oper_state.empty() ? "unknown" : link.oper_state;
  st["carrier"] = link.carrier ? "on" : "off";
  // "unknown" operstate is what virtual and some older drivers report while
  // fully working; the carrier bit is the ground truth for them.
  bool oper_ok = link.oper_state == "up" || (link.oper_state == "unknown" && link.carrier);
  bool ok = link.admin_up && link.carrier && oper_ok;
  out.push_back(make_finding("HW-NIC-STATE", ok ? Status::kPass : Status::kFail, link.name, st));

  if (plane.mtu) {
    reports::Params p = base;
    p["mtu"] = std::to_string(link.mtu);
    p["expected"] = std::to_string(*plane.mtu);
    out.push_back(make_finding("HW-NIC-MTU", link.mtu == *plane.mtu ? Status::kPass : Status::kFail,
                               link.name, p));
  }
  if (plane.min_speed_mbps) {
    reports::Params p = base;
    p["expected_mbps"] = std::to_string(*plane.min_speed_mbps);
    if (!link.speed_mbps) {
      p["reason"] = link.name + " does not report a link speed (virtual NIC or link down)";
      out.push_back(make_finding("HW-NIC-SPEED", Status::kSkip, link.name, p));
    } else {
      p["speed_mbps"] = std::to_string(*link.speed_mbps);
      Finding f = make_finding(
          "HW-NIC-SPEED", *link.speed_mbps >= *plane.min_speed_mbps ? Status::kPass : Status::kFail,
          link.name, p);
      f.metrics["speed"] = {static_cast<double>(*link.speed_mbps), "Mb/s"};
      out.push_back(f);
    }
  }
}

}  // namespace

std::vector<Finding> check_plane_nics(const NodeContext& ctx) {
  std::vector<Finding> out;
  const auto links = ctx.sources.physical->links();
  std::vector<stack::netplane::Route> routes;
  bool need_routes = std::any_of(ctx.profile->planes.begin(), ctx.profile->planes.end(),
                                 [](const auto& p) { return p.nic == "auto"; });
  if (need_routes) routes = ctx.sources.netplane->routes();
  for (const auto& plane : ctx.profile->planes) {
    PlaneNics nics = resolve_plane_nics(plane, ctx.node, links, routes);
    if (!nics.unresolved_reason.empty()) {
      // A plane declared only by subnet has no NIC name to look for at L7;
      // when no NIC here has an address in it, NET-PLANE-ADDRESS reports it.
      if (plane.nic.empty() && !(ctx.node && ctx.node->nics.count(plane.name))) continue;
      out.push_back(make_finding("HW-NIC-PRESENT", Status::kSkip, "plane " + plane.name,
                                 {{"plane", plane.name}, {"reason", nics.unresolved_reason}}));
      continue;
    }
    if (nics.matches.empty()) {
      out.push_back(make_finding(
          "HW-NIC-PRESENT", Status::kFail, nics.pattern,
          {{"pattern", nics.pattern}, {"plane", plane.name}, {"found", join_names(links)}}));
      continue;
    }
    for (const auto* link : nics.matches) check_one_nic(plane, *link, out);
  }
  return out;
}

std::vector<Finding> check_rdma(const NodeContext& ctx) {
  std::vector<Finding> out;
  const physical::RdmaInventory inv = ctx.sources.physical->rdma();
  std::string names;
  for (const auto& d : inv.devices) names += (names.empty() ? "" : ", ") + d.name;
  if (!inv.supported) {
    out.push_back(make_finding("HW-RDMA-INVENTORY", Status::kSkip, "rdma",
                               {{"reason", inv.unsupported_reason}}));
  } else {
    out.push_back(make_finding("HW-RDMA-INVENTORY", Status::kPass, "rdma",
                               {{"count", std::to_string(inv.devices.size())},
                                {"devices", names.empty() ? "none" : names}}));
  }
  for (const auto& plane : ctx.profile->planes) {
    if (!plane.rdma) continue;
    const auto& want = *plane.rdma;
    const physical::RdmaDevice* dev = nullptr;
    for (const auto& d : inv.devices)
      if (want.device.empty() || d.name == want.device) {
        dev = &d;
        break;
      }
    if (want.device.empty() && inv.supported) {
      // No device named: the one whose port drives the plane's NIC, so the
      // ACTIVE check below judges the plane's port (first device otherwise).
      NetReadings r = read_net(ctx);
      for (const auto& pv : r.view.planes)
        if (pv.plane == &plane)
          if (PlaneRdma rd = find_plane_rdma(inv, pv, r.links); rd.device) dev = rd.device;
    }
    std::string label = want.device.empty() ? "(any)" : want.device;
    if (!dev) {
      std::string found = inv.supported ? (names.empty() ? "none" : names)
                                        : "none (" + inv.unsupported_reason + ")";
      out.push_back(make_finding("HW-RDMA-DEVICE", Status::kFail, label,
                                 {{"device", label}, {"plane", plane.name}, {"found", found}}));
      continue;
    }
    out.push_back(make_finding("HW-RDMA-DEVICE", Status::kPass, dev->name,
                               {{"device", dev->name}, {"plane", plane.name}}));
    auto port = std::find_if(dev->ports.begin(), dev->ports.end(),
                             [&](const auto& p) { return p.port == want.port; });
    reports::Params pp{{"device", dev->name}, {"port", std::to_string(want.port)}};
    if (port == dev->ports.end()) {
      pp["state"] = "absent";
      out.push_back(make_finding("HW-RDMA-PORT", Status::kFail, dev->name + "/" + pp["port"], pp));
      continue;
    }
    pp["state"] = port->state;
    pp["link_layer"] = port->link_layer;
    pp["active_mtu"] = std::to_string(port->active_mtu);
    out.push_back(make_finding("HW-RDMA-PORT",
                               port->state == "ACTIVE" ? Status::kPass : Status::kFail,
                               dev->name + "/" + pp["port"], pp));
  }
  return out;
}

std::vector<Finding> check_accelerators(const NodeContext& ctx) {
  std::vector<Finding> out;
  const auto& spec = ctx.profile->physical.accelerators;
  if (!spec) return out;
  const physical::AcceleratorInventory inv = ctx.sources.physical->accelerators();
  int pci = static_cast<int>(std::count_if(
      inv.pci.begin(), inv.pci.end(), [&](const auto& a) { return a.vendor == spec->vendor; }));
  // Per-device nodes exist once the driver is loaded: /dev/nvidiaN, /dev/davinciN.
  // AMD exposes no per-device node of that shape, so only PCI counts there.
  std::string node_prefix = spec->vendor == "nvidia"   ? "nvidia"
                            : spec->vendor == "huawei" ? "davinci"
                                                       : "";
  int nodes = 0;
  if (!node_prefix.empty())
    for (const auto& n : inv.device_nodes) nodes += is_device_node(n, node_prefix) ? 1 : 0;
  bool ok = pci == spec->count && (node_prefix.empty() || nodes == spec->count);
  std::string vendor_id = spec->vendor == "nvidia"   ? "10de"
                          : spec->vendor == "huawei" ? "19e5"
                                                     : "1002";
  Finding f = make_finding("HW-ACCEL-COUNT", ok ? Status::kPass : Status::kFail, spec->vendor,
                           {{"vendor", spec->vendor},
                            {"vendor_id", vendor_id},
                            {"count", std::to_string(pci)},
                            {"nodes", node_prefix.empty() ? "n/a" : std::to_string(nodes)},
                            {"expected", std::to_string(spec->count)}});
  f.metrics["accelerators"] = {static_cast<double>(pci), "devices"};
  out.push_back(f);
  return out;
}

std::vector<Finding> check_thermal(const NodeContext& ctx) {
  std::vector<Finding> out;
  if (!ctx.profile->physical.max_temp_c) return out;
  double limit = *ctx.profile->physical.max_temp_c;
  const auto sensors = ctx.sources.physical->thermal();
  if (sensors.empty()) {
    out.push_back(make_finding("HW-TEMP", Status::kSkip, "thermal",
                               {{"reason", "no readable thermal zone or hwmon sensor"}}));
    return out;
  }
  const physical::ThermalSensor* hottest = &sensors.front();
  for (const auto& s : sensors) {
    if (s.temp_c > hottest->temp_c) hottest = &s;
    if (s.temp_c <= limit) continue;
    Finding f =
        make_finding("HW-TEMP", Status::kFail, s.name,
                     {{"sensor", s.name}, {"temp_c", fmt(s.temp_c)}, {"limit_c", fmt(limit)}});
    f.evidence["source"] = s.source;
    f.metrics["temperature"] = {s.temp_c, "C"};
    out.push_back(f);
  }
  if (out.empty()) {
    Finding f = make_finding(
        "HW-TEMP", Status::kPass, hottest->name,
        {{"sensor", hottest->name + " (hottest of " + std::to_string(sensors.size()) + ")"},
         {"temp_c", fmt(hottest->temp_c)},
         {"limit_c", fmt(limit)}});
    f.metrics["temperature"] = {hottest->temp_c, "C"};
    out.push_back(f);
  }
  return out;
}

std::vector<Finding> check_memory_cpu(const NodeContext& ctx) {
  std::vector<Finding> out;
  const auto& spec = ctx.profile->physical;
  if (spec.min_memory_gib) {
    physical::MemoryInfo m = ctx.sources.physical->memory();
    double avail = static_cast<double>(m.available_kib) / (1024.0 * 1024.0);
    double total = static_cast<double>(m.total_kib) / (1024.0 * 1024.0);
    Finding f = make_finding(
        "HW-MEMORY", avail >= *spec.min_memory_gib ? Status::kPass : Status::kFail, "memory",
        {{"available_gib", fmt(avail)},
         {"total_gib", fmt(total)},
         {"min_gib", fmt(*spec.min_memory_gib)}});
    f.metrics["memory_available"] = {avail, "GiB"};
    out.push_back(f);
  }
  if (spec.min_cpus) {
    physical::CpuInfo c = ctx.sources.physical->cpu();
    Finding f = make_finding(
        "HW-CPU", c.logical_cpus >= *spec.min_cpus ? Status::kPass : Status::kFail, "cpu",
        {{"cpus", std::to_string(c.logical_cpus)},
         {"numa", std::to_string(c.numa_nodes.size())},
         {"expected", std::to_string(*spec.min_cpus)}});
    out.push_back(f);
  }
  return out;
}

}  // namespace hn::probes
