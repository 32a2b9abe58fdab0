#include "probes/physical_probes.h"

#include <catch2/catch.hpp>

#include "formats/profile.h"

using namespace hn;
using reports::Finding;
using reports::Status;

namespace {

stack::physical::Link link(const std::string& name, int mtu, bool up = true) {
  stack::physical::Link l;
  l.name = name;
  l.mtu = mtu;
  l.admin_up = up;
  l.carrier = up;
  l.oper_state = up ? "up" : "down";
  return l;
}

probes::NodeContext context(const std::string& profile_yaml, stack::physical::Inventory inv,
                            stack::netplane::NetState net = {}) {
  probes::NodeContext ctx;
  ctx.profile = std::make_shared<formats::Profile>(formats::parse_profile(profile_yaml, "p.yaml"));
  ctx.sources.physical = stack::physical::make_snapshot_source(std::move(inv));
  ctx.sources.netplane = stack::netplane::make_snapshot_netplane_source(std::move(net));
  ctx.sources.hostname = "node0";
  ctx.node = probes::identify_node(*ctx.profile, "node0");
  return ctx;
}

const Finding& only(const std::vector<Finding>& fs, const std::string& code,
                    const std::string& entity) {
  const Finding* hit = nullptr;
  for (const auto& f : fs)
    if (f.code == code && f.entity == entity) {
      REQUIRE(hit == nullptr);
      hit = &f;
    }
  INFO(code << " for " << entity);
  REQUIRE(hit != nullptr);
  return *hit;
}

const char* kPlanes =
    "version: 1\n"
    "planes:\n"
    "  - {name: param0, type: parameter, nic: eth1, mtu: 9000, speed_mbps: 25000}\n"
    "  - {name: mgmt, type: management, nic: eth0}\n";

}  // namespace

TEST_CASE("a healthy plane NIC passes presence, state, MTU and speed") {
  stack::physical::Inventory inv;
  inv.links = {link("eth0", 1500), link("eth1", 9000)};
  inv.links[1].speed_mbps = 100000;
  auto fs = probes::check_plane_nics(context(kPlanes, inv));
  for (const auto& f : fs) {
    INFO(f.code << " " << f.entity << ": " << f.message);
    CHECK(f.status == Status::kPass);
  }
  CHECK(only(fs, "HW-NIC-MTU", "eth1").message == "eth1 MTU is 9000 as plane param0 expects");
  CHECK(only(fs, "HW-NIC-SPEED", "eth1").metrics.at("speed").value == 100000);
}

TEST_CASE("a missing plane NIC is a FAIL naming the NIC and what exists") {
  stack::physical::Inventory inv;
  inv.links = {link("eth0", 1500), link("lo", 65536)};
  auto fs = probes::check_plane_nics(context(kPlanes, inv));
  const auto& f = only(fs, "HW-NIC-PRESENT", "eth1");
  CHECK(f.status == Status::kFail);
  CHECK_THAT(f.message, Catch::Contains("no NIC matching 'eth1'"));
  CHECK_THAT(f.message, Catch::Contains("eth0, lo"));
  CHECK_FALSE(f.remediation.empty());
}

TEST_CASE("wrong MTU, slow link, down link and unknown speed") {
  stack::physical::Inventory inv;
  inv.links = {link("eth0", 1500, false), link("eth1", 1500)};
  inv.links[1].speed_mbps = 10000;
  auto fs = probes::check_plane_nics(context(kPlanes, inv));
  CHECK(only(fs, "HW-NIC-MTU", "eth1").status == Status::kFail);
  CHECK_THAT(only(fs, "HW-NIC-MTU", "eth1").message, Catch::Contains("expects 9000"));
  CHECK(only(fs, "HW-NIC-SPEED", "eth1").status == Status::kFail);
  const auto& down = only(fs, "HW-NIC-STATE", "eth0");
  CHECK(down.status == Status::kFail);
  CHECK_THAT(down.message, Catch::Contains("admin down"));

  inv.links[1].speed_mbps.reset();
  fs = probes::check_plane_nics(context(kPlanes, inv));
  CHECK(only(fs, "HW-NIC-SPEED", "eth1").status == Status::kSkip);
}

TEST_CASE("globs match every NIC, node overrides win, auto follows the default route") {
  stack::physical::Inventory inv;
  inv.links = {link("ens1f0", 1500), link("ens1f1", 1500), link("eth0", 1500), link("eth7", 1500)};
  const char* yaml =
      "version: 1\n"
      "nodes: [{name: node0, nics: {mgmt: eth7}}]\n"
      "planes:\n"
      "  - {name: param0, type: parameter, nic: 'ens1f*'}\n"
      "  - {name: mgmt, type: management, nic: eth0}\n"
      "  - {name: data, type: data, nic: auto}\n";
  stack::netplane::NetState net;
  net.routes = {{254, "default", "192.0.2.1", "eth0", "", 0, 4, "unicast", "static"}};
  auto fs = probes::check_plane_nics(context(yaml, inv, net));
  CHECK(only(fs, "HW-NIC-PRESENT", "ens1f0").status == Status::kPass);
  CHECK(only(fs, "HW-NIC-PRESENT", "ens1f1").status == Status::kPass);
  CHECK(only(fs, "HW-NIC-PRESENT", "eth7").evidence.at("plane") == "mgmt");
  CHECK(only(fs, "HW-NIC-PRESENT", "eth0").evidence.at("plane") == "data");

  fs = probes::check_plane_nics(context(yaml, inv, {}));
  CHECK(only(fs, "HW-NIC-PRESENT", "plane data").status == Status::kSkip);
}

TEST_CASE("RDMA: no kernel support is a SKIP, an expected device then FAILs with the reason") {
  stack::physical::Inventory inv;
  inv.rdma.supported = false;
  inv.rdma.unsupported_reason = "ibv_get_device_list: Function not implemented (ENOSYS)";
  auto fs = probes::check_rdma(context("version: 1\n", inv));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].status == Status::kSkip);
  CHECK_THAT(fs[0].message, Catch::Contains("ENOSYS"));

  const char* yaml =
      "version: 1\nplanes:\n  - {name: p, type: parameter, nic: e, rdma: {device: mlx5_0}}\n";
  fs = probes::check_rdma(context(yaml, inv));
  const auto& dev = only(fs, "HW-RDMA-DEVICE", "mlx5_0");
  CHECK(dev.status == Status::kFail);
  CHECK_THAT(dev.message, Catch::Contains("ENOSYS"));
}

TEST_CASE("RDMA: port state is judged per the profile's port") {
  stack::physical::Inventory inv;
  inv.rdma.supported = true;
  stack::physical::RdmaDevice d;
  d.name = "mlx5_0";
  d.ports = {{1, "ACTIVE", "Ethernet", 4096, "", "ens1f0", {}},
             {2, "DOWN", "Ethernet", 1024, "", "", {}}};
  inv.rdma.devices = {d};
  const char* p1 =
      "version: 1\nplanes:\n  - {name: p, type: parameter, nic: e, rdma: {device: mlx5_0}}\n";
  const char* p2 =
      "version: 1\nplanes:\n  - {name: p, type: parameter, nic: e, rdma: {device: mlx5_0, port: "
      "2}}\n";
  CHECK(only(probes::check_rdma(context(p1, inv)), "HW-RDMA-PORT", "mlx5_0/1").status ==
        Status::kPass);
  const auto fs = probes::check_rdma(context(p2, inv));
  CHECK(only(fs, "HW-RDMA-PORT", "mlx5_0/2").status == Status::kFail);
  CHECK_THAT(only(fs, "HW-RDMA-PORT", "mlx5_0/2").message, Catch::Contains("is DOWN"));
}

TEST_CASE("accelerator count needs both PCI devices and device nodes") {
  stack::physical::Inventory inv;
  for (int i = 0; i < 8; ++i) {
    inv.accelerators.pci.push_back(
        {"nvidia", "0000:0" + std::to_string(i) + ":00.0", "0x10de", "0x20b0", "0x030200", 0});
    inv.accelerators.device_nodes.push_back("/dev/nvidia" + std::to_string(i));
  }
  inv.accelerators.device_nodes.push_back("/dev/nvidiactl");
  const char* yaml = "version: 1\nphysical: {accelerators: {vendor: nvidia, count: 8}}\n";
  CHECK(only(probes::check_accelerators(context(yaml, inv)), "HW-ACCEL-COUNT", "nvidia").status ==
        Status::kPass);
  inv.accelerators.pci.pop_back();
  auto f = only(probes::check_accelerators(context(yaml, inv)), "HW-ACCEL-COUNT", "nvidia");
  CHECK(f.status == Status::kFail);
  CHECK_THAT(f.message,
             Catch::Contains("7 nvidia accelerator(s) on PCI and 8 device node(s), expected 8"));
}

TEST_CASE("temperatures: every hot sensor fails, otherwise the hottest passes") {
  stack::physical::Inventory inv;
  inv.thermal = {{"zone0", "/sys/a", 45}, {"zone1", "/sys/b", 92.5}, {"zone2", "/sys/c", 88}};
  const char* yaml = "version: 1\nphysical: {max_temp_c: 85}\n";
  auto fs = probes::check_thermal(context(yaml, inv));
  CHECK(fs.size() == 2);
  CHECK(only(fs, "HW-TEMP", "zone1").status == Status::kFail);
  CHECK_THAT(only(fs, "HW-TEMP", "zone1").message,
             Catch::Contains("92.5 °C exceeds the limit of 85.0"));
  inv.thermal.resize(1);
  fs = probes::check_thermal(context(yaml, inv));
  CHECK(only(fs, "HW-TEMP", "zone0").status == Status::kPass);
  inv.thermal.clear();
  CHECK(probes::check_thermal(context(yaml, inv)).at(0).status == Status::kSkip);
}

TEST_CASE("memory and CPU minimums") {
  stack::physical::Inventory inv;
  inv.memory = {8ull << 20, 1ull << 20};  // 8 GiB total, 1 GiB available
  inv.cpu.logical_cpus = 4;
  auto fs = probes::check_memory_cpu(
      context("version: 1\nphysical: {min_memory_gib: 2, min_cpus: 4}\n", inv));
  CHECK(only(fs, "HW-MEMORY", "memory").status == Status::kFail);
  CHECK(only(fs, "HW-CPU", "cpu").status == Status::kPass);
}
