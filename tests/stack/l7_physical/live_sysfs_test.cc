// The sysfs/procfs readers against tests/fixtures/sysfs/node-a, a trimmed
// copy of a two-socket node: PCI GPUs/NPUs/NICs, NUMA, thermal, hwmon, NICs.

#include <catch2/catch.hpp>

#include "stack/l7_physical/live_readers.h"
#include "stack/l7_physical/source.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::physical;

namespace {

const std::string kRoot = std::string(HN_FIXTURE_DIR) + "/sysfs/node-a";

LiveRoots fixture_roots() {
  return {kRoot + "/sys", kRoot + "/proc", kRoot + "/dev"};
}

}  // namespace

TEST_CASE("accelerators: vendor/class filter, NUMA and device nodes", "[live_sysfs]") {
  AcceleratorInventory inv = make_live_source(fixture_roots())->accelerators();
  std::vector<Accelerator> expected = {
      {"nvidia", "0000:18:00.0", "0x10de", "0x20b0", "0x030200", 0},
      // numa_node -1 (no affinity) is absent, not -1 or 0.
      {"huawei", "0000:5e:00.0", "0x19e5", "0xd802", "0x120000", std::nullopt},
      // Accepted by its Ascend device id although the class is not 0x1200.
      {"huawei", "0000:5f:00.0", "0x19e5", "0xd801", "0x0b4000", 1},
      {"amd", "0000:86:00.0", "0x1002", "0x740f", "0x038000", 1},
  };
  // Rejected: NVIDIA HDMI audio, Mellanox NICs, a Huawei NIC, an AMD display.
  CHECK(inv.pci == expected);
  const std::string dev = kRoot + "/dev/";
  CHECK(inv.device_nodes == std::vector<std::string>{dev + "davinci0", dev + "davinci1",
                                                     dev + "nvidia0", dev + "nvidia1",
                                                     dev + "nvidia2", dev + "nvidia10"});
}

TEST_CASE("classify_accelerator", "[live_sysfs]") {
  using hn::stack::physical::detail::classify_accelerator;
  CHECK(classify_accelerator("0x10de", "0x20b0", "0x030200") == "nvidia");
  CHECK(classify_accelerator("0x10de", "0x1eb8", "0x030000") == "nvidia");
  CHECK(classify_accelerator("0x10DE", "0x20B0", "0x030200") == "nvidia");
  CHECK(classify_accelerator("0x10de", "0x1aef", "0x040300") == "");  // HDMI audio
  CHECK(classify_accelerator("0x10de", "0x22a3", "0x068000") == "");  // NVSwitch bridge
  CHECK(classify_accelerator("0x19e5", "0xd802", "0x120000") == "huawei");
  CHECK(classify_accelerator("0x19e5", "0x1234", "0x120001") == "huawei");
  for (const char* id : {"0xd100", "0xd500", "0xd801", "0xd802", "0xd803"})
    CHECK(classify_accelerator("0x19e5", id, "0xff0000") == "huawei");
  CHECK(classify_accelerator("0x19e5", "0x1822", "0x020000") == "");  // Huawei NIC
  CHECK(classify_accelerator("0x1002", "0x740f", "0x038000") == "amd");
  CHECK(classify_accelerator("0x1002", "0x74a1", "0x120000") == "amd");
  CHECK(classify_accelerator("0x1002", "0x164e", "0x030000") == "");  // Radeon display
  CHECK(classify_accelerator("0x8086", "0x0b25", "0x120000") == "");
}

TEST_CASE("cpu: online count, model name and NUMA nodes", "[live_sysfs]") {
  CpuInfo cpu = make_live_source(fixture_roots())->cpu();
  CHECK(cpu.logical_cpus == 8);
  CHECK(cpu.model == "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz");
  CHECK(cpu.numa_nodes == std::vector<NumaNode>{{0, "0-3", 65536000}, {1, "8-11", 65535000}});
}

TEST_CASE("memory: MemTotal and MemAvailable", "[live_sysfs]") {
  CHECK(make_live_source(fixture_roots())->memory() == MemoryInfo{131071000, 120000000});
}

TEST_CASE("thermal: zones and hwmon in natural order, unreadable ones skipped", "[live_sysfs]") {
  auto sensors = make_live_source(fixture_roots())->thermal();
  const std::string s = kRoot + "/sys/class/";
  std::vector<ThermalSensor> expected = {
      {"thermal_zone0 (x86_pkg_temp)", s + "thermal/thermal_zone0/temp", 45.0},
      {"thermal_zone10 (pch_cannonlake)", s + "thermal/thermal_zone10/temp", 52.5},
      {"hwmon0 acpitz temp1", s + "hwmon/hwmon0/temp1_input", 27.8},
      {"hwmon1 coretemp Package id 0", s + "hwmon/hwmon1/temp1_input", 48.0},
      {"hwmon1 coretemp Core 0", s + "hwmon/hwmon1/temp2_input", 47.0},
      {"hwmon1 coretemp temp10", s + "hwmon/hwmon1/temp10_input", -5.0},
  };
  CHECK(sensors == expected);
}

TEST_CASE("link sysfs attributes", "[live_sysfs]") {
  using hn::stack::physical::detail::fill_link_sysfs;
  auto read = [](const std::string& name) {
    Link l;
    l.name = name;
    fill_link_sysfs(kRoot + "/sys", l);
    return l;
  };
  SECTION("PCI NIC") {
    Link l = read("ens1f0");
    CHECK(l.speed_mbps == 100000);
    CHECK(l.duplex == "full");
    CHECK(l.driver == "mlx5_core");
    CHECK(l.pci_address == "0000:3b:00.0");
    CHECK(l.numa_node == 0);
  }
  SECTION("PCI NIC without link: speed -1 and duplex unknown are absent") {
    Link l = read("ens1f1");
    CHECK_FALSE(l.speed_mbps.has_value());
    CHECK(l.duplex.empty());
    CHECK(l.driver == "mlx5_core");
    CHECK(l.pci_address == "0000:3b:00.1");
  }
  SECTION("virtio NIC: not on PCI itself, unsigned SPEED_UNKNOWN") {
    Link l = read("eth0");
    CHECK_FALSE(l.speed_mbps.has_value());
    CHECK(l.duplex == "half");
    CHECK(l.driver == "virtio_net");
    CHECK(l.pci_address.empty());
    CHECK_FALSE(l.numa_node.has_value());
  }
  SECTION("no device at all") {
    for (const char* name : {"lo", "not-there"}) {
      Link l = read(name);
      Link bare;
      bare.name = name;
      CHECK(l == bare);
    }
  }
}

TEST_CASE("missing essential files are SourceErrors, optional ones are absent", "[live_sysfs]") {
  hn::test::TempDir dir;
  LiveRoots roots{dir.path() + "/sys", dir.path() + "/proc", dir.path() + "/dev"};
  auto src = make_live_source(roots);
  CHECK_THROWS_AS(src->cpu(), SourceError);
  CHECK_THROWS_WITH(src->memory(), Catch::Contains("/proc/meminfo"));
  CHECK(src->accelerators() == AcceleratorInventory{});
  CHECK(src->thermal().empty());

  dir.write("sys/devices/system/cpu/online", "0-1,x\n");
  CHECK_THROWS_WITH(src->cpu(), Catch::Contains("0-1,x"));
  dir.write("sys/devices/system/cpu/online", "0-1\n");
  CpuInfo cpu = src->cpu();
  CHECK(cpu.logical_cpus == 2);
  CHECK(cpu.model.empty());
  CHECK(cpu.numa_nodes.empty());

  dir.write("proc/meminfo", "MemTotal: 100 kB\n");
  CHECK_THROWS_WITH(src->memory(), Catch::Contains("MemAvailable"));
  dir.write("proc/cpuinfo", "processor\t: 0\nHardware\t: Kirin 990\n");
  CHECK(src->cpu().model == "Kirin 990");
}
