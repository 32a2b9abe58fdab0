#include "formats/profile.h"

#include <set>

#include "compat/text_file.h"
#include "compat/yaml_input.h"
#include "formats/embedded_profiles.h"
#include "formats/profile_model.h"
#include "formats/profile_storage.h"

namespace hn::formats {

namespace netplane = stack::netplane;
using compat::YamlMap;

namespace {

using compat::require_yaml_sequence;
using compat::yaml_index;

std::string normalise_gid_type(const std::string& text, const YAML::Node& n, const std::string& src,
                               const std::string& field) {
  std::string t;
  for (char c : text)
    if (c != ' ' && c != '_' && c != '-') t += static_cast<char>(std::tolower(c));
  if (t == "rocev2" || t == "roce2") return "RoCE v2";
  if (t == "rocev1" || t == "roce1") return "RoCE v1";
  if (t == "ib" || t == "infiniband") return "IB";
  if (t == "roce")  // the GID tables list both versions: which one is a choice, never a default
    compat::throw_at(
        n, src, field,
        "gid_type '" + text + "' does not say which RoCE version: write RoCEv2 or RoCEv1");
  compat::throw_at(n, src, field,
                   "unknown gid_type '" + text + "' (expected RoCEv2, RoCEv1 or IB)");
}

netplane::RdmaExpectation parse_rdma(YamlMap m) {
  netplane::RdmaExpectation r;
  r.device = m.opt_string("device").value_or("");
  r.port = static_cast<int>(m.opt_int("port", 1, 255).value_or(1));
  if (auto g = m.opt_string("gid_type"))
    r.gid_type = normalise_gid_type(*g, m.get("gid_type"), m.source(), m.field("gid_type"));
  if (auto v = m.opt_int("gid_index", 0, 65535)) r.gid_index = static_cast<int>(*v);
  if (auto v = m.opt_int("mtu", 256, 4096)) {
    int mtu = static_cast<int>(*v);
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
      compat::throw_at(m.get("mtu"), m.source(), m.field("mtu"),
                       "RDMA MTU must be 256, 512, 1024, 2048 or 4096, got " + std::to_string(mtu));
    r.mtu = mtu;
  }
  m.finish();
  return r;
}

// certify's busbw_min_gbps, busbw_min_fraction (of speed_mbps, which it
// then needs) and slow_link_fraction, each a fraction in (0, 1], and
// link_line_fraction in [0, 1].
void parse_plane_thresholds(YamlMap& m, const netplane::Plane& p, PlaneThresholds& t) {
  auto fraction = [&](const char* key) -> std::optional<double> {
    auto v = m.opt_number(key);
    if (v && !(*v > 0 && *v <= 1))
      compat::throw_at(m.get(key), m.source(), m.field(key), "must be a fraction in (0, 1]");
    return v;
  };
  if (auto v = m.opt_number("busbw_min_gbps")) {
    if (!(*v > 0 && *v < 1e6))
      compat::throw_at(m.get("busbw_min_gbps"), m.source(), m.field("busbw_min_gbps"),
                       "must be a bandwidth in GB/s above 0");
    t.min_busbw_gbps = v;
  }
  t.min_busbw_fraction = fraction("busbw_min_fraction");
  if (t.min_busbw_fraction && !p.min_speed_mbps)
    compat::throw_at(m.get("busbw_min_fraction"), m.source(), m.field("busbw_min_fraction"),
                     "is a fraction of speed_mbps, which plane '" + p.name + "' does not set");
  if (auto v = fraction("slow_link_fraction")) t.slow_link_fraction = *v;
  if (auto v = m.opt_number("link_line_fraction")) {
    if (!(*v >= 0 && *v <= 1))
      compat::throw_at(m.get("link_line_fraction"), m.source(), m.field("link_line_fraction"),
                       "must be a fraction in [0, 1] (0 turns the line-rate check off)");
    t.link_line_fraction = *v;
  }
}

netplane::Plane parse_plane(const YAML::Node& node, const std::string& src, const std::string& path,
                            PlaneThresholds& t) {
  YamlMap m(node, src, path);
  netplane::Plane p;
  p.line = compat::yaml_position(node).first;
  p.name = m.req_string("name");
  std::string type = m.req_string("type");
  try {
    p.type = netplane::plane_type_from_string(type);
  } catch (const std::invalid_argument& e) {
    compat::throw_at(m.get("type"), src, m.field("type"), e.what());
  }
  auto parse_subnet = [&](const YAML::Node& n, const std::string& field) {
    std::string text = compat::yaml_string(n, src, field);
    try {
      p.subnets.push_back(netplane::parse_network(text));
    } catch (const std::invalid_argument& e) {
      compat::throw_at(n, src, field, e.what());
    }
  };
  if (YAML::Node s = m.get("subnet"); s.IsDefined() && !s.IsNull())
    parse_subnet(s, m.field("subnet"));
  if (YAML::Node s = m.get("subnets"); s.IsDefined() && !s.IsNull()) {
    require_yaml_sequence(s, src, m.field("subnets"));
    for (size_t i = 0; i < s.size(); ++i) parse_subnet(s[i], yaml_index(m.field("subnets"), i));
  }
  p.nic = m.opt_string("nic").value_or("");
  if (YAML::Node v = m.get("vlan"); v.IsDefined() && !v.IsNull()) {
    if (v.IsMap()) {
      YamlMap vm(v, src, m.field("vlan"));
      YAML::Node id = vm.required("id");
      p.vlan = static_cast<int>(compat::yaml_int(id, src, vm.field("id"), 1, 4094));
      p.vlan_parent = vm.opt_string("parent").value_or("");
      vm.finish();
    } else {
      p.vlan = static_cast<int>(compat::yaml_int(v, src, m.field("vlan"), 1, 4094));
    }
  }
  if (auto v = m.opt_int("mtu", 68, 65536)) p.mtu = static_cast<int>(*v);
  if (auto v = m.opt_int("speed_mbps", 1, 10000000)) p.min_speed_mbps = static_cast<int>(*v);
  parse_plane_thresholds(m, p, t);
  if (YAML::Node r = m.get("rdma"); r.IsDefined() && !r.IsNull())
    p.rdma = parse_rdma(YamlMap(r, src, m.field("rdma")));
  if (YAML::Node peers = m.get("peers"); peers.IsDefined() && !peers.IsNull()) {
    p.peers = compat::yaml_string_list(peers, src, m.field("peers"));
    for (size_t i = 0; i < p.peers.size(); ++i)
      if (!netplane::try_parse_ip(p.peers[i]))
        compat::throw_at(peers.IsSequence() ? peers[i] : peers, src,
                         yaml_index(m.field("peers"), i),
                         "'" + p.peers[i] + "' is not an IP address");
  }
  m.finish();
  if (p.nic.empty() && p.subnets.empty())
    compat::throw_at(node, src, path, "plane '" + p.name + "' needs a nic or a subnet");
  return p;
}

NodeSpec parse_node(const YAML::Node& node, const std::string& src, const std::string& path) {
  YamlMap m(node, src, path);
  NodeSpec n;
  n.line = compat::yaml_position(node).first;
  n.name = m.req_string("name");
  auto read_map = [&](const char* key, std::map<std::string, std::string>& out, bool ip) {
    YAML::Node v = m.get(key);
    if (!v.IsDefined() || v.IsNull()) return;
    if (!v.IsMap()) compat::throw_at(v, src, m.field(key), "expected a map of plane: value");
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string plane = it->first.Scalar();
      std::string field = m.field(key) + "." + plane;
      std::string value = compat::yaml_string(it->second, src, field);
      if (ip && !netplane::try_parse_ip(value))
        compat::throw_at(it->second, src, field, "'" + value + "' is not an IP address");
      out[plane] = value;
    }
  };
  read_map("addresses", n.addresses, true);
  read_map("nics", n.nics, false);
  m.finish();
  return n;
}

PhysicalSpec parse_physical(YamlMap m) {
  PhysicalSpec p;
  if (YAML::Node a = m.get("accelerators"); a.IsDefined() && !a.IsNull()) {
    YamlMap am(a, m.source(), m.field("accelerators"));
    AcceleratorSpec spec;
    spec.vendor = am.req_string("vendor");
    if (spec.vendor != "nvidia" && spec.vendor != "huawei" && spec.vendor != "amd")
      compat::throw_at(am.get("vendor"), m.source(), am.field("vendor"),
                       "unknown vendor '" + spec.vendor + "' (expected nvidia, huawei or amd)");
    spec.count = static_cast<int>(
        compat::yaml_int(am.required("count"), m.source(), am.field("count"), 0, 4096));
    am.finish();
    p.accelerators = spec;
  }
  // A limit outside these ranges is a typo or a unit mix-up (Kelvin, MiB),
  // and would make the check meaningless (always FAIL or always PASS).
  if (auto v = m.opt_number("max_temp_c")) {
    if (*v <= 0 || *v > 150)
      compat::throw_at(m.get("max_temp_c"), m.source(), m.field("max_temp_c"),
                       "must be in (0, 150] degrees Celsius");
    p.max_temp_c = v;
  }
  if (auto v = m.opt_number("min_memory_gib")) {
    if (*v < 0 || *v > 1048576)
      compat::throw_at(m.get("min_memory_gib"), m.source(), m.field("min_memory_gib"),
                       "must be in [0, 1048576] GiB");
    p.min_memory_gib = v;
  }
  if (auto v = m.opt_int("min_cpus", 1, 1 << 20)) p.min_cpus = static_cast<int>(*v);
  m.finish();
  return p;
}

CommSpec parse_comm(YamlMap m) {
  CommSpec c;
  c.library = m.opt_string("library").value_or("");
  static const std::set<std::string> kLibs = {"", "hccl", "nccl", "rccl", "gloo", "mpi", "oneccl"};
  if (!kLibs.count(c.library))
    compat::throw_at(
        m.get("library"), m.source(), m.field("library"),
        "unknown library '" + c.library + "' (expected hccl, nccl, rccl, gloo, mpi or oneccl)");
  if (auto v = m.opt_int("pfc_priority", 0, 7)) c.pfc_priority = static_cast<int>(*v);
  m.finish();
  return c;
}

std::vector<DomainSpec> parse_topology(YamlMap m) {
  std::vector<DomainSpec> out;
  YAML::Node d = m.get("domains");
  require_yaml_sequence(d, m.source(), m.field("domains"));
  for (size_t i = 0; d.IsSequence() && i < d.size(); ++i) {
    YamlMap dm(d[i], m.source(), yaml_index(m.field("domains"), i));
    DomainSpec s;
    s.name = dm.req_string("name");
    s.link = dm.opt_string("link").value_or("");
    s.nodes = dm.string_list("nodes");
    dm.finish();
    out.push_back(s);
  }
  m.finish();
  return out;
}

void cross_check(const Profile& p, const YAML::Node& root) {
  std::set<std::string> planes;
  for (const auto& pl : p.planes)
    if (!planes.insert(pl.name).second)
      throw compat::InputError(p.source, pl.line, 0, "planes",
                               "plane name '" + pl.name + "' is used twice");
  // Isolated planes cannot share addresses: an overlap makes a plane's
  // address, routes and misbinding checks ambiguous.
  for (size_t i = 0; i < p.planes.size(); ++i)
    for (size_t j = i + 1; j < p.planes.size(); ++j)
      for (const auto& a : p.planes[i].subnets)
        for (const auto& b : p.planes[j].subnets)
          if (a.address.family == b.address.family &&
              (a.contains(b.address) || b.contains(a.address)))
            throw compat::InputError(
                p.source, p.planes[j].line, 0, "planes",
                "subnet " + b.str() + " of plane '" + p.planes[j].name + "' overlaps subnet " +
                    a.str() + " of plane '" + p.planes[i].name + "' (line " +
                    std::to_string(p.planes[i].line) + "): planes are isolated networks");
  std::set<std::string> nodes;
  for (const auto& n : p.nodes) {
    if (!nodes.insert(n.name).second)
      throw compat::InputError(p.source, n.line, 0, "nodes",
                               "node name '" + n.name + "' is used twice");
    for (const auto& [plane, addr] : n.addresses) {
      const auto* pl = p.find_plane(plane);
      if (!pl)
        throw compat::InputError(p.source, n.line, 0, "nodes." + n.name + ".addresses",
                                 "plane '" + plane + "' is not declared under planes");
      auto ip = netplane::parse_ip(addr);
      bool inside = pl->subnets.empty();
      for (const auto& s : pl->subnets) inside = inside || s.contains(ip);
      if (!inside)
        throw compat::InputError(p.source, n.line, 0, "nodes." + n.name + ".addresses." + plane,
                                 addr + " is outside the subnet(s) of plane " + plane);
    }
    for (const auto& [plane, nic] : n.nics)
      if (!p.find_plane(plane))
        throw compat::InputError(p.source, n.line, 0, "nodes." + n.name + ".nics",
                                 "plane '" + plane + "' is not declared under planes");
  }
  if (p.model)
    for (const auto& [kind, plane] : p.model->group_planes)
      if (!p.find_plane(plane))
        throw compat::InputError(p.source, compat::yaml_position(root["model"]["planes"]).first, 0,
                                 "model.planes." + kind,
                                 "plane '" + plane + "' is not declared under planes");
  for (const auto& d : p.domains)
    for (const auto& n : d.nodes)
      if (!p.nodes.empty() && !nodes.count(n))
        throw compat::InputError(p.source, compat::yaml_position(root["topology"]).first, 0,
                                 "topology.domains." + d.name,
                                 "node '" + n + "' is not declared under nodes");
}

}  // namespace

const netplane::Plane* Profile::find_plane(const std::string& name) const {
  for (const auto& p : planes)
    if (p.name == name) return &p;
  return nullptr;
}

PlaneThresholds Profile::thresholds_of(const std::string& plane) const {
  auto it = thresholds.find(plane);
  return it == thresholds.end() ? PlaneThresholds{} : it->second;
}

const NodeSpec* Profile::find_node(const std::string& name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

Profile parse_profile(const std::string& text, const std::string& source_name) {
  YAML::Node root = compat::load_yaml_text(text, source_name);
  if (!root.IsDefined() || root.IsNull())
    throw compat::InputError(source_name, 0, 0, "", "the profile is empty (expected version: 1)");
  YamlMap m(root, source_name, "");
  Profile p;
  p.source = source_name;
  p.version =
      static_cast<int>(compat::yaml_int(m.required("version"), source_name, "version", 1, 1));
  p.cluster = m.opt_string("cluster").value_or("");
  YAML::Node nodes = m.get("nodes");
  require_yaml_sequence(nodes, source_name, "nodes");
  for (size_t i = 0; nodes.IsSequence() && i < nodes.size(); ++i)
    p.nodes.push_back(parse_node(nodes[i], source_name, yaml_index("nodes", i)));
  YAML::Node planes = m.get("planes");
  require_yaml_sequence(planes, source_name, "planes");
  for (size_t i = 0; planes.IsSequence() && i < planes.size(); ++i) {
    PlaneThresholds t;
    p.planes.push_back(parse_plane(planes[i], source_name, yaml_index("planes", i), t));
    p.thresholds[p.planes.back().name] = t;
  }
  if (YAML::Node s = m.get("storage"); s.IsDefined())
    p.storage = parse_storage_spec(YamlMap(s, source_name, "storage"));
  if (YAML::Node s = m.get("physical"); s.IsDefined())
    p.physical = parse_physical(YamlMap(s, source_name, "physical"));
  if (YAML::Node s = m.get("comm"); s.IsDefined())
    p.comm = parse_comm(YamlMap(s, source_name, "comm"));
  if (YAML::Node s = m.get("topology"); s.IsDefined())
    p.domains = parse_topology(YamlMap(s, source_name, "topology"));
  if (YAML::Node s = m.get("model"); s.IsDefined())
    p.model = parse_model_spec(YamlMap(s, source_name, "model"));
  m.finish();
  cross_check(p, root);
  return p;
}

Profile load_profile_file(const std::string& path) {
  return parse_profile(compat::read_text_file(path), path);
}

const std::string& default_profile_text() {
  static const std::string text = embedded::kDefaultProfile;
  return text;
}

Profile default_profile() {
  return parse_profile(default_profile_text(), "embedded:default");
}

}  // namespace hn::formats
