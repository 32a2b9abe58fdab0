#include "probes/translate_context.h"

#include <stdexcept>

#include "compat/input_error.h"
#include "stack/l6_netplane/port_sysctls.h"
#include "stack/l7_physical/source.h"

namespace hn::probes {

namespace netplane = stack::netplane;
namespace tr = compat::translate;

namespace {

bool has_glob(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

const netplane::Plane& pick_plane(const formats::Profile& profile, const std::string& name,
                                  std::string& why_none) {
  static const netplane::Plane kNone{};
  if (!name.empty()) {
    if (const auto* p = profile.find_plane(name)) return *p;
    throw compat::InputError("command line", 0, 0, "--plane",
                             "the profile " + profile.source + " has no plane '" + name + "'");
  }
  for (const auto& p : profile.planes)
    if (p.type == netplane::PlaneType::kParameter) return p;
  why_none = "the profile declares no plane of type parameter";
  return kNone;
}

}  // namespace

tr::ParamPlane resolve_param_plane(const formats::Profile& profile, const std::string& node_name,
                                   const std::string& plane_name) {
  tr::ParamPlane pp;
  const netplane::Plane& plane = pick_plane(profile, plane_name, pp.unresolved);
  const formats::NodeSpec* node = nullptr;
  if (!node_name.empty()) {
    node = profile.find_node(node_name);
    if (!node)
      throw compat::InputError(
          "command line", 0, 0, "--node",
          "the profile " + profile.source + " has no node '" + node_name + "'");
  }
  if (!pp.unresolved.empty()) return pp;
  pp.plane = plane.name;
  auto nic_of = [&](const formats::NodeSpec* n) {
    if (n)
      if (auto it = n->nics.find(plane.name); it != n->nics.end()) return it->second;
    return plane.nic;
  };
  std::vector<std::pair<std::string, std::string>> nics;  // node -> NIC pattern
  if (node)
    nics.push_back({node->name, nic_of(node)});
  else if (!profile.nodes.empty())
    for (const auto& n : profile.nodes) nics.push_back({n.name, nic_of(&n)});
  else
    nics.push_back({"", plane.nic});
  bool same = true;
  for (const auto& [n, nic] : nics) same = same && nic == nics.front().second;
  const std::string pattern = nics.front().second;
  if (!same) {
    std::string list;
    for (const auto& [n, nic] : nics) list += (list.empty() ? "" : ", ") + n + " " + nic;
    pp.unresolved = "its NIC differs between nodes (" + list + ")";
  } else if (pattern.empty()) {
    pp.unresolved = "the profile names no NIC for it";
  } else if (pattern == "auto") {
    pp.unresolved = "its NIC is 'auto' (each node's default-route NIC)";
  } else if (!has_glob(pattern)) {
    pp.nic_exact = pattern;
  } else if (pattern.back() == '*' && !has_glob(pattern.substr(0, pattern.size() - 1))) {
    pp.nic_prefix = pattern.substr(0, pattern.size() - 1);
  } else {
    pp.unresolved =
        "its NIC is the glob '" + pattern + "', which the interface grammar cannot express";
  }
  if (node)
    if (auto it = node->addresses.find(plane.name); it != node->addresses.end())
      pp.node_ip = it->second;
  std::vector<netplane::IpPrefix> subnets = plane.subnets;
  pp.contains_ip = [subnets](const std::string& ip) {
    auto a = netplane::try_parse_ip(ip);
    if (!a) return false;
    for (const auto& s : subnets)
      if (s.contains(*a)) return true;
    return false;
  };
  return pp;
}

tr::Context make_translate_context(const formats::Profile* profile,
                                   const TranslateContextOptions& o) {
  tr::Context ctx;
  ctx.platform = o.platform;
  ctx.pg_timeout_s = o.pg_timeout_s;
  if (o.pg_timeout_s) ctx.pg_timeout_source = o.pg_timeout_source;
  if (profile) {
    ctx.param = resolve_param_plane(*profile, o.node, o.plane);
    ctx.profile_name = profile->source;
    ctx.pfc_priority = profile->comm.pfc_priority;
  }
  if (!o.local_port_range.empty()) {
    try {
      auto [lo, hi] = netplane::parse_port_range_text(o.local_port_range);
      ctx.ephemeral = tr::PortRange{lo, hi};
    } catch (const std::invalid_argument& e) {
      throw compat::InputError("command line", 0, 0, "--local-port-range", e.what());
    }
    try {
      for (auto [lo, hi] : netplane::parse_reserved_ports_text(o.reserved_ports))
        ctx.reserved.push_back({lo, hi});
    } catch (const std::invalid_argument& e) {
      throw compat::InputError("command line", 0, 0, "--reserved-ports", e.what());
    }
    ctx.ports_source = "given on the command line";
    return ctx;
  }
  if (!o.reserved_ports.empty())
    throw compat::InputError("command line", 0, 0, "--reserved-ports",
                             "needs --local-port-range as well");
  try {
    netplane::LocalPortConfig c = netplane::read_local_port_config(o.proc_root);
    ctx.ephemeral = tr::PortRange{c.low, c.high};
    for (auto [lo, hi] : c.reserved) ctx.reserved.push_back({lo, hi});
    ctx.ports_source = "read from " + o.proc_root + "/sys/net/ipv4 on this host";
  } catch (const stack::physical::SourceError& e) {
    ctx.ports_source = e.what();
  }
  return ctx;
}

}  // namespace hn::probes
