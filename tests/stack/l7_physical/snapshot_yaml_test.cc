#include "stack/l7_physical/snapshot_yaml.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "compat/input_error.h"
#include "compat/yaml_input.h"

using hn::compat::InputError;
using namespace hn::stack::physical;

namespace {

Link full_link() {
  Link l;
  l.name = "ens1f0";
  l.ifindex = 4;
  l.admin_up = true;
  l.oper_state = "up";
  l.carrier = true;
  l.mtu = 9000;
  l.mac = "b8:ce:f6:12:34:56";
  l.master = "bond0";
  l.rx_bytes = std::numeric_limits<std::uint64_t>::max();  // beyond LLONG_MAX
  l.tx_bytes = 1;
  l.rx_packets = 2;
  l.tx_packets = 3;
  l.speed_mbps = 100000;
  l.duplex = "full";
  l.driver = "mlx5_core";
  l.pci_address = "0000:3b:00.0";
  l.numa_node = 0;  // a present zero must stay present
  return l;
}

Link vlan_link() {
  Link l;
  l.name = "eth1.100";
  l.ifindex = 7;
  l.kind = "vlan";
  l.parent = "eth1";
  l.vlan_id = 100;
  return l;
}

RdmaInventory roce() {
  RdmaInventory r;
  r.supported = true;
  RdmaDevice d;
  d.name = "mlx5_0";
  d.node_guid = "b8ce:f603:0012:3456";
  d.fw_ver = "22.36.1010";
  RdmaPort p1;
  p1.port = 1;
  p1.state = "ACTIVE";
  p1.link_layer = "Ethernet";
  p1.active_mtu = 4096;
  p1.rate = "100 Gb/sec (4X EDR)";
  p1.netdev = "ens1f0";
  p1.gids = {{0, "fe80:0000:0000:0000:bace:f6ff:fe12:3456", "IB/RoCE v1", "ens1f0"},
             {3, "0000:0000:0000:0000:0000:ffff:0a0a:0001", "RoCE v2", ""}};
  RdmaPort p2;
  p2.port = 2;
  p2.state = "DOWN";
  d.ports = {p1, p2};
  r.devices = {d};
  return r;
}

Inventory full_inventory() {
  Inventory inv;
  inv.links = {full_link(), vlan_link()};
  inv.rdma = roce();
  inv.accelerators.pci = {{"nvidia", "0000:18:00.0", "0x10de", "0x20b0", "0x030200", 1},
                          {"huawei", "0000:5e:00.0", "0x19e5", "0xd802", "0x120000", {}}};
  inv.accelerators.device_nodes = {"/dev/nvidia0", "/dev/davinci0"};
  inv.cpu = {64, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", {{0, "0-31", 1}, {1, "32-63", 2}}};
  inv.memory = {std::numeric_limits<std::uint64_t>::max(), 0};
  inv.thermal = {{"thermal_zone0 (x86_pkg_temp)", "/sys/class/thermal/thermal_zone0/temp", 45.5},
                 {"hwmon1 coretemp Core 0", "/sys/class/hwmon/hwmon1/temp2_input", 0.1},
                 {"cold", "", -5.25},
                 {"tiny", "", 1e-300}};
  return inv;
}

// Strings a plain YAML scalar would turn into something else.
Inventory tricky_strings() {
  Inventory inv;
  for (const char* s : {"",
                        "null",
                        "~",
                        "true",
                        "no",
                        "0x10",
                        "007",
                        "1e3",
                        " lead",
                        "trail ",
                        "a: b",
                        "#hash",
                        "- dash",
                        "[x]",
                        "{y}",
                        "multi\nline",
                        "quote\"s'",
                        "temp \xC2\xB0"
                        "C",
                        "*alias",
                        "&anchor",
                        "!tag",
                        "%pct",
                        "@at",
                        "`tick"}) {
    Link l;
    l.name = std::string("if-") + s;
    l.oper_state = "up";  // an enum, checked on reading
    l.mac = s;
    l.kind = s;
    inv.links.push_back(l);
    inv.thermal.push_back({s, s, 0});
  }
  inv.cpu.model = "null";
  inv.rdma.unsupported_reason = "ibv_get_device_list failed: Function not implemented (ENOSYS)";
  return inv;
}

Inventory round_trip_text(const Inventory& inv) {
  YAML::Emitter out;
  out << to_yaml(inv);
  REQUIRE(out.good());
  YAML::Node back = hn::compat::load_yaml_text(out.c_str(), "roundtrip.yaml");
  return inventory_from_yaml(back, "roundtrip.yaml", "physical");
}

Inventory parse(const std::string& text) {
  return inventory_from_yaml(hn::compat::load_yaml_text(text, "snap.yaml"), "snap.yaml",
                             "physical");
}

}  // namespace

TEST_CASE("to_yaml and inventory_from_yaml round-trip exactly", "[snapshot_yaml]") {
  Inventory only_links;
  only_links.links = {full_link()};
  Inventory absent_optionals;
  absent_optionals.links = {Link{"veth0", 9, true, "up", true, 1500, "", "veth", "br0", "veth1",
                                 {},      0, 0,    0,    0,    {},   "", "",     "",    {}}};
  Inventory no_rdma;
  no_rdma.rdma.unsupported_reason = "no RDMA";

  auto inv = GENERATE_COPY(Inventory{}, only_links, absent_optionals, no_rdma, full_inventory(),
                           tricky_strings());
  SECTION("through the node") {
    CHECK(inventory_from_yaml(to_yaml(inv), "mem", "physical") == inv);
  }
  SECTION("through emitted text") {
    CHECK(round_trip_text(inv) == inv);
  }
}

TEST_CASE("optional fields are omitted when absent", "[snapshot_yaml]") {
  Inventory inv;
  inv.links = {vlan_link(), full_link()};
  inv.links[0].numa_node.reset();
  YAML::Node n = to_yaml(inv);
  YAML::Node vlan = n["links"][0];
  CHECK(vlan["vlan_id"].as<int>() == 100);
  CHECK_FALSE(vlan["speed_mbps"].IsDefined());
  CHECK_FALSE(vlan["numa_node"].IsDefined());
  YAML::Node nic = n["links"][1];
  CHECK_FALSE(nic["vlan_id"].IsDefined());
  CHECK(nic["speed_mbps"].as<int>() == 100000);
  CHECK(nic["numa_node"].as<int>() == 0);
  Inventory back = inventory_from_yaml(n, "mem", "physical");
  CHECK_FALSE(back.links[0].speed_mbps.has_value());
  CHECK(back.links[1].numa_node == 0);
}

TEST_CASE("missing non-required fields take the struct defaults", "[snapshot_yaml]") {
  Inventory inv = parse("links:\n  - name: eth0\n");
  REQUIRE(inv.links.size() == 1);
  Link expected;
  expected.name = "eth0";
  CHECK(inv.links[0] == expected);
  CHECK(parse("") == Inventory{});
  CHECK(parse("{}") == Inventory{});
}

TEST_CASE("unknown keys are rejected by name with file and line", "[snapshot_yaml]") {
  SECTION("in a link") {
    try {
      parse("links:\n  - name: eth0\n    mtu: 1500\n    mtuu: 1500\n");
      FAIL("expected InputError");
    } catch (const InputError& e) {
      CHECK(e.file() == "snap.yaml");
      CHECK(e.line() == 4);
      CHECK(e.field() == "physical.links[0].mtuu");
      CHECK_THAT(e.what(), Catch::Contains("unknown key 'mtuu'") && Catch::Contains("snap.yaml:4"));
    }
  }
  SECTION("at the top") {
    try {
      parse("links: []\nnics: []\n");
      FAIL("expected InputError");
    } catch (const InputError& e) {
      CHECK(e.line() == 2);
      CHECK(e.field() == "physical.nics");
    }
  }
  SECTION("deep in an RDMA GID") {
    try {
      parse(
          "rdma:\n  supported: true\n  devices:\n    - name: mlx5_0\n      ports:\n"
          "        - port: 1\n          gids:\n            - {index: 0, gid: \"fe80::1\", typ: "
          "x}\n");
      FAIL("expected InputError");
    } catch (const InputError& e) {
      CHECK(e.line() == 8);
      CHECK(e.field() == "physical.rdma.devices[0].ports[0].gids[0].typ");
    }
  }
}

TEST_CASE("wrong types name the field", "[snapshot_yaml]") {
  struct Case {
    const char* yaml;
    const char* field;
  };
  auto c = GENERATE(
      Case{"links:\n  - name: eth0\n    mtu: [1500]\n", "physical.links[0].mtu"},
      Case{"links:\n  - name: eth0\n    speed_mbps: fast\n", "physical.links[0].speed_mbps"},
      Case{"links:\n  - name: eth0\n    admin_up: maybe\n", "physical.links[0].admin_up"},
      Case{"links:\n  - name: eth0\n    rx_bytes: -1\n", "physical.links[0].rx_bytes"},
      Case{"links:\n  - name: eth0\n    vlan_id: 5000\n", "physical.links[0].vlan_id"},
      Case{"links:\n  - name: [eth0]\n", "physical.links[0].name"},
      Case{"links:\n  - mtu: 1500\n", "physical.links[0].name"},
      Case{"links: {eth0: {}}\n", "physical.links"}, Case{"rdma: [1]\n", "physical.rdma"},
      Case{"memory: {total_kib: lots}\n", "physical.memory.total_kib"},
      Case{"thermal:\n  - {name: t, temp_c: hot}\n", "physical.thermal[0].temp_c"},
      Case{"accelerators: {device_nodes: {a: b}}\n", "physical.accelerators.device_nodes"});
  CAPTURE(c.yaml);
  try {
    parse(c.yaml);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == c.field);
    CHECK(e.line() > 0);
    CHECK_THAT(e.what(), Catch::Contains(c.field));
  }
}
