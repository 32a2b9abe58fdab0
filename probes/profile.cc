#include "probes/profile.h"

#include <set>

#include "compat/text_file.h"
#include "compat/units.h"
#include "probes/embedded_profiles.h"
#include "compat/yaml_input.h"

namespace hn::probes {

namespace netplane = stack::netplane;
using compat::YamlMap;

namespace {

std::string idx(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

void require_sequence(const YAML::Node& n, const std::string& src, const std::string& field) {
  if (n.IsDefined() && !n.IsNull() && !n.IsSequence())
    compat::throw_at(n, src, field, "expected a list");
}

std::string normalise_gid_type(const std::string& text, const YAML::Node& n,
                               const std::string& src, const std::string& field) {
  std::string t;
  for (char c : text)
    if (c != ' ' && c != '_' && c != '-') t += static_cast<char>(std::tolower(c));
  if (t == "rocev2" || t == "roce2") return "RoCE v2";
  if (t == "rocev1" || t == "roce1" || t == "roce") return "RoCE v1";
  if (t == "ib" || t == "infiniband") return "IB";
  compat::throw_at(n, src, field, "unknown gid_type '" + text + "' (expected RoCEv2, RoCEv1 or IB)");
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

netplane::Plane parse_plane(const YAML::Node& node, const std::string& src, const std::string& path) {
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
  if (YAML::Node s = m.get("subnet"); s.IsDefined() && !s.IsNull()) parse_subnet(s, m.field("subnet"));
  if (YAML::Node s = m.get("subnets"); s.IsDefined() && !s.IsNull()) {
    require_sequence(s, src, m.field("subnets"));
    for (size_t i = 0; i < s.size(); ++i) parse_subnet(s[i], idx(m.field("subnets"), i));
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
  if (YAML::Node r = m.get("rdma"); r.IsDefined() && !r.IsNull())
    p.rdma = parse_rdma(YamlMap(r, src, m.field("rdma")));
  if (YAML::Node peers = m.get("peers"); peers.IsDefined() && !peers.IsNull()) {
    p.peers = compat::yaml_string_list(peers, src, m.field("peers"));
    for (size_t i = 0; i < p.peers.size(); ++i)
      if (!netplane::try_parse_ip(p.peers[i]))
        compat::throw_at(peers.IsSequence() ? peers[i] : peers, src, idx(m.field("peers"), i),
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

LatencyLimits parse_limits(YamlMap m, LatencyLimits base) {
  auto num = [&](const char* key, std::optional<double>& out) {
    if (auto v = m.opt_number(key)) {
      if (*v <= 0) compat::throw_at(m.get(key), m.source(), m.field(key), "must be positive");
      out = *v;
    }
  };
  num("p50_ms", base.p50_ms);
  num("p90_ms", base.p90_ms);
  num("p99_ms", base.p99_ms);
  num("p999_ms", base.p999_ms);
  num("max_ms", base.max_ms);
  num("tail_ratio", base.tail_ratio);
  num("write_mbps", base.write_mbps);
  num("read_mbps", base.read_mbps);
  m.finish();
  return base;
}

std::uint64_t size_field(YamlMap& m, const char* key, std::uint64_t fallback) {
  YAML::Node n = m.get(key);
  if (!n.IsDefined() || n.IsNull()) return fallback;
  std::string text = compat::yaml_string(n, m.source(), m.field(key));
  try {
    std::uint64_t v = compat::parse_size(text);
    if (v == 0) compat::throw_at(n, m.source(), m.field(key), "must be greater than zero");
    return v;
  } catch (const std::invalid_argument& e) {
    compat::throw_at(n, m.source(), m.field(key), e.what());
  }
}

JitterSpec parse_jitter(YamlMap m) {
  JitterSpec j;
  j.block_bytes = size_field(m, "block", j.block_bytes);
  if (auto v = m.opt_number("duration_s")) {
    if (*v <= 0 || *v > 3600)
      compat::throw_at(m.get("duration_s"), m.source(), m.field("duration_s"),
                       "must be in (0, 3600] seconds");
    j.duration_s = *v;
  }
  j.max_bytes = size_field(m, "max_bytes", j.max_bytes);
  if (auto v = m.opt_int("threads", 1, 256)) j.threads = static_cast<int>(*v);
  if (auto v = m.opt_string("sync")) {
    if (*v != "fsync" && *v != "dsync")
      compat::throw_at(m.get("sync"), m.source(), m.field("sync"),
                       "expected fsync or dsync, got '" + *v + "'");
    j.sync = *v;
  }
  if (m.has("workloads")) {
    j.workloads = m.string_list("workloads");
    static const std::set<std::string> kKnown = {"sync_write", "random_read", "metadata",
                                                 "checkpoint"};
    for (size_t i = 0; i < j.workloads.size(); ++i)
      if (!kKnown.count(j.workloads[i]))
        compat::throw_at(m.get("workloads"), m.source(), idx(m.field("workloads"), i),
                         "unknown workload '" + j.workloads[i] +
                             "' (expected sync_write, random_read, metadata, checkpoint)");
  }
  j.checkpoint_bytes = size_field(m, "checkpoint_size", j.checkpoint_bytes);
  if (auto v = m.opt_number("checkpoint_estimate_gib")) {
    if (*v <= 0)
      compat::throw_at(m.get("checkpoint_estimate_gib"), m.source(),
                       m.field("checkpoint_estimate_gib"), "must be positive");
    j.checkpoint_estimate_gib = *v;
  }
  j.read_file_bytes = size_field(m, "read_file_size", j.read_file_bytes);
  if (j.block_bytes > (64ull << 20))
    compat::throw_at(m.get("block"), m.source(), m.field("block"), "must be at most 64MiB");
  if (j.read_file_bytes < j.block_bytes)
    compat::throw_at(m.get("read_file_size"), m.source(), m.field("read_file_size"),
                     "must be at least one block (" + std::to_string(j.block_bytes) + " bytes)");
  if (YAML::Node w = m.get("warn"); w.IsDefined()) j.warn = parse_limits(YamlMap(w, m.source(), m.field("warn")), j.warn);
  if (YAML::Node f = m.get("fail"); f.IsDefined()) j.fail = parse_limits(YamlMap(f, m.source(), m.field("fail")), j.fail);
  m.finish();
  return j;
}

MountSpec parse_mount(const YAML::Node& node, const std::string& src, const std::string& path) {
  YamlMap m(node, src, path);
  MountSpec s;
  s.line = compat::yaml_position(node).first;
  s.path = m.req_string("path");
  if (s.path.empty() || s.path[0] != '/')
    compat::throw_at(m.get("path"), src, m.field("path"), "must be an absolute path");
  s.fstypes = m.string_list("fstype");
  if (YAML::Node o = m.get("options"); o.IsDefined() && !o.IsNull()) {
    YamlMap om(o, src, m.field("options"));
    s.require_options = om.string_list("require");
    s.forbid_options = om.string_list("forbid");
    om.finish();
  }
  s.source = m.opt_string("source").value_or("");
  if (auto v = m.opt_number("min_free_gib")) {
    if (*v < 0) compat::throw_at(m.get("min_free_gib"), src, m.field("min_free_gib"), "must not be negative");
    s.min_free_gib = *v;
  }
  if (auto v = m.opt_int("min_free_inodes", 0, INT64_MAX)) s.min_free_inodes = *v;
  s.probe_dir = m.opt_string("probe_dir").value_or(s.path);
  s.jitter = m.opt_bool("jitter").value_or(true);
  s.mountpoint = m.opt_bool("mountpoint").value_or(true);
  if (auto v = m.opt_number("timeout_s")) {
    if (*v <= 0 || *v > 3600)
      compat::throw_at(m.get("timeout_s"), src, m.field("timeout_s"), "must be in (0, 3600] seconds");
    s.timeout_s = *v;
  }
  if (s.probe_dir.empty() || s.probe_dir[0] != '/')
    compat::throw_at(m.get("probe_dir"), src, m.field("probe_dir"), "must be an absolute path");
  m.finish();
  return s;
}

StorageSpec parse_storage(YamlMap m) {
  StorageSpec s;
  YAML::Node mounts = m.get("mounts");
  require_sequence(mounts, m.source(), m.field("mounts"));
  std::set<std::string> seen;
  for (size_t i = 0; mounts.IsSequence() && i < mounts.size(); ++i) {
    s.mounts.push_back(parse_mount(mounts[i], m.source(), idx(m.field("mounts"), i)));
    if (!seen.insert(s.mounts.back().path).second)
      compat::throw_at(mounts[i], m.source(), idx(m.field("mounts"), i),
                       "mount path '" + s.mounts.back().path + "' is listed twice");
  }
  if (YAML::Node j = m.get("jitter"); j.IsDefined() && !j.IsNull()) {
    s.jitter = parse_jitter(YamlMap(j, m.source(), m.field("jitter")));
    s.jitter_declared = true;
  }
  m.finish();
  return s;
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
    spec.count = static_cast<int>(compat::yaml_int(am.required("count"), m.source(),
                                                   am.field("count"), 0, 4096));
    am.finish();
    p.accelerators = spec;
  }
  p.max_temp_c = m.opt_number("max_temp_c");
  p.min_memory_gib = m.opt_number("min_memory_gib");
  if (auto v = m.opt_int("min_cpus", 1, 1 << 20)) p.min_cpus = static_cast<int>(*v);
  m.finish();
  return p;
}

CommSpec parse_comm(YamlMap m) {
  CommSpec c;
  c.library = m.opt_string("library").value_or("");
  static const std::set<std::string> kLibs = {"", "hccl", "nccl", "rccl", "gloo", "mpi", "oneccl"};
  if (!kLibs.count(c.library))
    compat::throw_at(m.get("library"), m.source(), m.field("library"),
                     "unknown library '" + c.library +
                         "' (expected hccl, nccl, rccl, gloo, mpi or oneccl)");
  if (auto v = m.opt_int("pfc_priority", 0, 7)) c.pfc_priority = static_cast<int>(*v);
  m.finish();
  return c;
}

std::vector<DomainSpec> parse_topology(YamlMap m) {
  std::vector<DomainSpec> out;
  YAML::Node d = m.get("domains");
  require_sequence(d, m.source(), m.field("domains"));
  for (size_t i = 0; d.IsSequence() && i < d.size(); ++i) {
    YamlMap dm(d[i], m.source(), idx(m.field("domains"), i));
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
      throw compat::InputError(p.source, pl.line, 0, "planes", "plane name '" + pl.name +
                                                                   "' is used twice");
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
  p.version = static_cast<int>(compat::yaml_int(m.required("version"), source_name, "version", 1, 1));
  p.cluster = m.opt_string("cluster").value_or("");
  YAML::Node nodes = m.get("nodes");
  require_sequence(nodes, source_name, "nodes");
  for (size_t i = 0; nodes.IsSequence() && i < nodes.size(); ++i)
    p.nodes.push_back(parse_node(nodes[i], source_name, idx("nodes", i)));
  YAML::Node planes = m.get("planes");
  require_sequence(planes, source_name, "planes");
  for (size_t i = 0; planes.IsSequence() && i < planes.size(); ++i)
    p.planes.push_back(parse_plane(planes[i], source_name, idx("planes", i)));
  if (YAML::Node s = m.get("storage"); s.IsDefined()) p.storage = parse_storage(YamlMap(s, source_name, "storage"));
  if (YAML::Node s = m.get("physical"); s.IsDefined()) p.physical = parse_physical(YamlMap(s, source_name, "physical"));
  if (YAML::Node s = m.get("comm"); s.IsDefined()) p.comm = parse_comm(YamlMap(s, source_name, "comm"));
  if (YAML::Node s = m.get("topology"); s.IsDefined()) p.domains = parse_topology(YamlMap(s, source_name, "topology"));
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

Profile default_profile() { return parse_profile(default_profile_text(), "embedded:default"); }

}  // namespace hn::probes
