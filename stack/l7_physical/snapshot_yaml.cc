#include "stack/l7_physical/snapshot_yaml.h"

#include <arpa/inet.h>

#include <charconv>
#include <climits>
#include <functional>
#include <initializer_list>

#include "compat/yaml_input.h"

namespace hn::stack::physical {

namespace {

using compat::YamlMap;

// ---- writing --------------------------------------------------------------

// Shortest text that reads back to the same double, so the round trip is
// exact without printing 45.5 as 45.500000000000000.
std::string number_text(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

YAML::Node seq() {
  return YAML::Node(YAML::NodeType::Sequence);
}
YAML::Node map() {
  return YAML::Node(YAML::NodeType::Map);
}

YAML::Node link_node(const Link& l) {
  YAML::Node n = map();
  n["name"] = l.name;
  n["ifindex"] = l.ifindex;
  n["admin_up"] = l.admin_up;
  n["oper_state"] = l.oper_state;
  n["carrier"] = l.carrier;
  n["mtu"] = l.mtu;
  n["mac"] = l.mac;
  n["kind"] = l.kind;
  n["master"] = l.master;
  n["parent"] = l.parent;
  if (l.vlan_id) n["vlan_id"] = *l.vlan_id;
  n["rx_bytes"] = l.rx_bytes;
  n["tx_bytes"] = l.tx_bytes;
  n["rx_packets"] = l.rx_packets;
  n["tx_packets"] = l.tx_packets;
  if (l.speed_mbps) n["speed_mbps"] = *l.speed_mbps;
  n["duplex"] = l.duplex;
  n["driver"] = l.driver;
  n["pci_address"] = l.pci_address;
  if (l.numa_node) n["numa_node"] = *l.numa_node;
  return n;
}

YAML::Node rdma_node(const RdmaInventory& r) {
  YAML::Node n = map();
  n["supported"] = r.supported;
  n["unsupported_reason"] = r.unsupported_reason;
  YAML::Node devices = seq();
  for (const auto& d : r.devices) {
    YAML::Node dn = map();
    dn["name"] = d.name;
    dn["node_guid"] = d.node_guid;
    dn["fw_ver"] = d.fw_ver;
    YAML::Node ports = seq();
    for (const auto& p : d.ports) {
      YAML::Node pn = map();
      pn["port"] = p.port;
      pn["state"] = p.state;
      pn["link_layer"] = p.link_layer;
      pn["active_mtu"] = p.active_mtu;
      pn["rate"] = p.rate;
      pn["netdev"] = p.netdev;
      YAML::Node gids = seq();
      for (const auto& g : p.gids) {
        YAML::Node gn = map();
        gn["index"] = g.index;
        gn["gid"] = g.gid;
        gn["type"] = g.type;
        gn["netdev"] = g.netdev;
        gids.push_back(gn);
      }
      pn["gids"] = gids;
      ports.push_back(pn);
    }
    dn["ports"] = ports;
    devices.push_back(dn);
  }
  n["devices"] = devices;
  return n;
}

YAML::Node accelerators_node(const AcceleratorInventory& a) {
  YAML::Node n = map();
  YAML::Node pci = seq();
  for (const auto& x : a.pci) {
    YAML::Node xn = map();
    xn["vendor"] = x.vendor;
    xn["pci_address"] = x.pci_address;
    xn["vendor_id"] = x.vendor_id;
    xn["device_id"] = x.device_id;
    xn["pci_class"] = x.pci_class;
    if (x.numa_node) xn["numa_node"] = *x.numa_node;
    pci.push_back(xn);
  }
  n["pci"] = pci;
  YAML::Node nodes = seq();
  for (const auto& d : a.device_nodes) nodes.push_back(d);
  n["device_nodes"] = nodes;
  return n;
}

YAML::Node cpu_node(const CpuInfo& c) {
  YAML::Node n = map();
  n["logical_cpus"] = c.logical_cpus;
  n["model"] = c.model;
  YAML::Node nodes = seq();
  for (const auto& x : c.numa_nodes) {
    YAML::Node xn = map();
    xn["id"] = x.id;
    xn["cpulist"] = x.cpulist;
    xn["mem_total_kib"] = x.mem_total_kib;
    nodes.push_back(xn);
  }
  n["numa_nodes"] = nodes;
  return n;
}

// ---- reading --------------------------------------------------------------

// Calls each(element_map) for every map in the list under key; absent or
// null means an empty list. finish() is checked for every element.
void for_each_map(YamlMap& parent, std::string_view key,
                  const std::function<void(YamlMap&)>& each) {
  YAML::Node list = parent.get(key);
  if (!list.IsDefined() || list.IsNull()) return;
  const std::string field = parent.field(key);
  if (!list.IsSequence()) compat::throw_at(list, parent.source(), field, "expected a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    YamlMap m(list[i], parent.source(), field + "[" + std::to_string(i) + "]");
    each(m);
    m.finish();
  }
}

std::string str(YamlMap& m, std::string_view key) {
  return m.opt_string(key).value_or("");
}
bool flag(YamlMap& m, std::string_view key) {
  return m.opt_bool(key).value_or(false);
}

std::optional<int> opt_int(YamlMap& m, std::string_view key, int min, int max) {
  auto v = m.opt_int(key, min, max);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}
int int_or(YamlMap& m, std::string_view key, int min, int max, int fallback) {
  return opt_int(m, key, min, max).value_or(fallback);
}
int req_int(YamlMap& m, std::string_view key, int min, int max) {
  return static_cast<int>(compat::yaml_int(m.required(key), m.source(), m.field(key), min, max));
}

// Counters are unsigned 64-bit; yaml_int stops at LLONG_MAX.
std::uint64_t u64(YamlMap& m, std::string_view key) {
  YAML::Node n = m.get(key);
  if (!n.IsDefined() || n.IsNull()) return 0;
  if (!n.IsScalar())
    compat::throw_at(n, m.source(), m.field(key), "expected a non-negative integer");
  const std::string& s = n.Scalar();
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    compat::throw_at(n, m.source(), m.field(key),
                     "expected a non-negative integer, got '" + s + "'");
  return v;
}

// One of the values the live reader produces (or "" / absent). The probes
// compare these strings ("up", "ACTIVE", "RoCE v2"), so a typo would
// silently read as "not up" rather than as bad input.
std::string one_of(YamlMap& m, std::string_view key, std::initializer_list<const char*> allowed) {
  std::string v = str(m, key);
  if (v.empty()) return v;
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "'" : ", '") + std::string(a) + "'";
  }
  compat::throw_at(m.get(key), m.source(), m.field(key),
                   "unknown " + std::string(key) + " '" + v + "' (expected " + list + ")");
}

Link read_link(YamlMap& m) {
  Link l;
  l.name = m.req_string("name");
  l.ifindex = int_or(m, "ifindex", 0, INT_MAX, 0);
  l.admin_up = flag(m, "admin_up");
  // RFC 2863 operstates as libnl names them.
  l.oper_state =
      one_of(m, "oper_state",
             {"up", "down", "unknown", "dormant", "lowerlayerdown", "notpresent", "testing"});
  l.carrier = flag(m, "carrier");
  l.mtu = int_or(m, "mtu", 0, INT_MAX, 0);
  l.mac = str(m, "mac");
  l.kind = str(m, "kind");
  l.master = str(m, "master");
  l.parent = str(m, "parent");
  l.vlan_id = opt_int(m, "vlan_id", 0, 4095);
  l.rx_bytes = u64(m, "rx_bytes");
  l.tx_bytes = u64(m, "tx_bytes");
  l.rx_packets = u64(m, "rx_packets");
  l.tx_packets = u64(m, "tx_packets");
  l.speed_mbps = opt_int(m, "speed_mbps", 0, INT_MAX);
  l.duplex = one_of(m, "duplex", {"full", "half"});
  l.driver = str(m, "driver");
  l.pci_address = str(m, "pci_address");
  l.numa_node = opt_int(m, "numa_node", 0, INT_MAX);
  return l;
}

RdmaInventory read_rdma(YamlMap& m) {
  RdmaInventory r;
  r.supported = flag(m, "supported");
  r.unsupported_reason = str(m, "unsupported_reason");
  for_each_map(m, "devices", [&](YamlMap& dm) {
    RdmaDevice d;
    d.name = dm.req_string("name");
    d.node_guid = str(dm, "node_guid");
    d.fw_ver = str(dm, "fw_ver");
    for_each_map(dm, "ports", [&](YamlMap& pm) {
      RdmaPort p;
      p.port = req_int(pm, "port", 0, 255);
      // ibv_port_state_str() upper-cased, spaces as '_' (live_rdma.cc).
      p.state = one_of(
          pm, "state",
          {"ACTIVE", "DOWN", "INIT", "ARMED", "ACTIVE_DEFER", "NO_STATE_CHANGE_(NOP)", "UNKNOWN"});
      p.link_layer = one_of(pm, "link_layer", {"Ethernet", "InfiniBand"});
      p.active_mtu = int_or(pm, "active_mtu", 0, 1 << 20, 0);
      p.rate = str(pm, "rate");
      p.netdev = str(pm, "netdev");
      for_each_map(pm, "gids", [&](YamlMap& gm) {
        RdmaGid g;
        g.index = req_int(gm, "index", 0, INT_MAX);
        g.gid = gm.req_string("gid");
        in6_addr raw{};
        if (inet_pton(AF_INET6, g.gid.c_str(), &raw) != 1)
          compat::throw_at(gm.get("gid"), gm.source(), gm.field("gid"),
                           "'" + g.gid + "' is not a GID (eight groups of four hex digits)");
        // sysfs gid_attrs/types.
        g.type = one_of(gm, "type", {"RoCE v2", "IB/RoCE v1", "RoCE v1"});
        g.netdev = str(gm, "netdev");
        p.gids.push_back(std::move(g));
      });
      d.ports.push_back(std::move(p));
    });
    r.devices.push_back(std::move(d));
  });
  return r;
}

AcceleratorInventory read_accelerators(YamlMap& m) {
  AcceleratorInventory a;
  for_each_map(m, "pci", [&](YamlMap& xm) {
    Accelerator x;
    x.vendor = xm.req_string("vendor");
    x.pci_address = xm.req_string("pci_address");
    x.vendor_id = str(xm, "vendor_id");
    x.device_id = str(xm, "device_id");
    x.pci_class = str(xm, "pci_class");
    x.numa_node = opt_int(xm, "numa_node", 0, INT_MAX);
    a.pci.push_back(std::move(x));
  });
  a.device_nodes = m.string_list("device_nodes");
  return a;
}

CpuInfo read_cpu(YamlMap& m) {
  CpuInfo c;
  c.logical_cpus = int_or(m, "logical_cpus", 0, INT_MAX, 0);
  c.model = str(m, "model");
  for_each_map(m, "numa_nodes", [&](YamlMap& nm) {
    NumaNode n;
    n.id = req_int(nm, "id", 0, INT_MAX);
    n.cpulist = str(nm, "cpulist");
    n.mem_total_kib = u64(nm, "mem_total_kib");
    c.numa_nodes.push_back(std::move(n));
  });
  return c;
}

// Reads the map under key with fill(map) and rejects its unknown keys.
template <typename T>
T read_section(YamlMap& parent, std::string_view key, T (*fill)(YamlMap&)) {
  YAML::Node node = parent.get(key);
  // An absent key comes back as yaml-cpp's "invalid" node, which throws on
  // type queries and on assignment; an absent section reads as an empty one.
  YamlMap m(node.IsDefined() ? node : YAML::Node(), parent.source(), parent.field(key));
  T out = fill(m);
  m.finish();
  return out;
}

MemoryInfo read_memory(YamlMap& m) {
  return MemoryInfo{u64(m, "total_kib"), u64(m, "available_kib")};
}

}  // namespace

YAML::Node to_yaml(const Inventory& inv) {
  YAML::Node root = map();
  YAML::Node links = seq();
  for (const auto& l : inv.links) links.push_back(link_node(l));
  root["links"] = links;
  root["rdma"] = rdma_node(inv.rdma);
  root["accelerators"] = accelerators_node(inv.accelerators);
  root["cpu"] = cpu_node(inv.cpu);
  YAML::Node memory = map();
  memory["total_kib"] = inv.memory.total_kib;
  memory["available_kib"] = inv.memory.available_kib;
  root["memory"] = memory;
  YAML::Node thermal = seq();
  for (const auto& t : inv.thermal) {
    YAML::Node tn = map();
    tn["name"] = t.name;
    tn["source"] = t.source;
    tn["temp_c"] = number_text(t.temp_c);
    thermal.push_back(tn);
  }
  root["thermal"] = thermal;
  return root;
}

Inventory inventory_from_yaml(const YAML::Node& node, const std::string& source_name,
                              const std::string& path) {
  YamlMap root(node, source_name, path);
  Inventory inv;
  for_each_map(root, "links", [&](YamlMap& m) { inv.links.push_back(read_link(m)); });
  inv.rdma = read_section(root, "rdma", &read_rdma);
  inv.accelerators = read_section(root, "accelerators", &read_accelerators);
  inv.cpu = read_section(root, "cpu", &read_cpu);
  inv.memory = read_section(root, "memory", &read_memory);
  for_each_map(root, "thermal", [&](YamlMap& m) {
    ThermalSensor t;
    t.name = m.req_string("name");
    t.source = str(m, "source");
    t.temp_c = compat::yaml_number(m.required("temp_c"), m.source(), m.field("temp_c"));
    inv.thermal.push_back(std::move(t));
  });
  root.finish();
  return inv;
}

}  // namespace hn::stack::physical
