// The snapshot fixtures under tests/fixtures/snapshots are what the probe
// tests judge; this pins the facts those tests rely on, so a fixture edit that
// breaks them fails here with a clear message first.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "compat/yaml_input.h"
#include "stack/l7_physical/snapshot_yaml.h"

using namespace hn::stack::physical;

namespace {

Inventory load_fixture(const std::string& name) {
  const std::string path = std::string(HN_FIXTURE_DIR) + "/snapshots/" + name;
  YAML::Node doc = hn::compat::load_yaml_file(path);
  REQUIRE(doc["version"].as<int>() == 1);
  REQUIRE(doc["hostname"].IsScalar());
  REQUIRE(doc["captured_at"].IsScalar());
  REQUIRE(doc["physical"].IsMap());
  Inventory inv = inventory_from_yaml(doc["physical"], path, "physical");
  // Fixtures are hand-written; they must survive a write/read cycle too.
  CHECK(inventory_from_yaml(to_yaml(inv), path, "physical") == inv);
  return inv;
}

const Link* find_link(const Inventory& inv, const std::string& name) {
  auto it = std::find_if(inv.links.begin(), inv.links.end(),
                         [&](const Link& l) { return l.name == name; });
  return it == inv.links.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("roce-node.yaml: mlx5_0 with an active RoCE port and a down port", "[fixtures]") {
  Inventory inv = load_fixture("roce-node.yaml");
  for (const char* name : {"lo", "eth0", "ens1f0", "ens1f1"}) {
    CAPTURE(name);
    CHECK(find_link(inv, name) != nullptr);
  }
  for (const char* name : {"ens1f0", "ens1f1"}) {
    const Link* nic = find_link(inv, name);
    REQUIRE(nic);
    CHECK(nic->speed_mbps == 100000);
    CHECK(nic->driver == "mlx5_core");
    CHECK(nic->pci_address.rfind("0000:3b:00.", 0) == 0);
  }
  REQUIRE(inv.rdma.supported);
  REQUIRE(inv.rdma.devices.size() == 1);
  const RdmaDevice& dev = inv.rdma.devices[0];
  CHECK(dev.name == "mlx5_0");
  REQUIRE(dev.ports.size() == 2);
  const RdmaPort& p1 = dev.ports[0];
  CHECK(p1.port == 1);
  CHECK(p1.state == "ACTIVE");
  CHECK(p1.link_layer == "Ethernet");
  CHECK(p1.active_mtu == 4096);
  CHECK(p1.netdev == "ens1f0");
  REQUIRE(p1.gids.size() == 4);
  CHECK(p1.gids[0].gid.rfind("fe80:", 0) == 0);
  CHECK(p1.gids[0].type == "IB/RoCE v1");
  CHECK(p1.gids[1].gid.rfind("fe80:", 0) == 0);
  CHECK(p1.gids[1].type == "RoCE v2");
  CHECK(p1.gids[2].gid == "0000:0000:0000:0000:0000:ffff:0a0a:0001");
  CHECK(p1.gids[2].type == "IB/RoCE v1");
  CHECK(p1.gids[3].gid == "0000:0000:0000:0000:0000:ffff:0a0a:0001");
  CHECK(p1.gids[3].type == "RoCE v2");
  for (const auto& g : p1.gids) CHECK(g.netdev == "ens1f0");
  CHECK(dev.ports[1].port == 2);
  CHECK(dev.ports[1].state == "DOWN");
}

TEST_CASE("vlan-node.yaml: eth1 with VLAN child eth1.100", "[fixtures]") {
  Inventory inv = load_fixture("vlan-node.yaml");
  const Link* eth1 = find_link(inv, "eth1");
  const Link* vlan = find_link(inv, "eth1.100");
  REQUIRE(eth1);
  REQUIRE(vlan);
  CHECK(eth1->kind.empty());
  CHECK_FALSE(eth1->vlan_id.has_value());
  CHECK(vlan->kind == "vlan");
  CHECK(vlan->vlan_id == 100);
  CHECK(vlan->parent == "eth1");
  CHECK_FALSE(vlan->speed_mbps.has_value());
  CHECK_FALSE(inv.rdma.supported);
  CHECK_FALSE(inv.rdma.unsupported_reason.empty());
}

TEST_CASE("gpu-node.yaml: eight NVIDIA GPUs with device nodes", "[fixtures]") {
  Inventory inv = load_fixture("gpu-node.yaml");
  REQUIRE(inv.accelerators.pci.size() == 8);
  for (const auto& a : inv.accelerators.pci) {
    CHECK(a.vendor == "nvidia");
    CHECK(a.vendor_id == "0x10de");
    CHECK(a.pci_class == "0x030200");
    CHECK(a.numa_node.has_value());
  }
  REQUIRE(inv.accelerators.device_nodes.size() == 8);
  for (int i = 0; i < 8; ++i)
    CHECK(inv.accelerators.device_nodes[i] == "/dev/nvidia" + std::to_string(i));
}

TEST_CASE("npu-node.yaml: eight Ascend NPUs and one sensor at 92 C", "[fixtures]") {
  Inventory inv = load_fixture("npu-node.yaml");
  REQUIRE(inv.accelerators.pci.size() == 8);
  for (const auto& a : inv.accelerators.pci) {
    CHECK(a.vendor == "huawei");
    CHECK(a.vendor_id == "0x19e5");
    CHECK(a.device_id == "0xd802");
    CHECK(a.pci_class == "0x120000");
  }
  REQUIRE(inv.accelerators.device_nodes.size() == 8);
  for (int i = 0; i < 8; ++i)
    CHECK(inv.accelerators.device_nodes[i] == "/dev/davinci" + std::to_string(i));
  REQUIRE_FALSE(inv.thermal.empty());
  auto hottest = std::max_element(
      inv.thermal.begin(), inv.thermal.end(),
      [](const ThermalSensor& a, const ThermalSensor& b) { return a.temp_c < b.temp_c; });
  CHECK(hottest->temp_c == 92.0);
  CHECK(std::count_if(inv.thermal.begin(), inv.thermal.end(),
                      [](const ThermalSensor& s) { return s.temp_c > 90; }) == 1);
}
