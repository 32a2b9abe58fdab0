// The live source on this machine: read-only, no assumptions beyond what any
// Linux host has (lo, /proc/meminfo, an online CPU list).

#include <sys/sysinfo.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "stack/l7_physical/live_readers.h"
#include "stack/l7_physical/source.h"

using namespace hn::stack::physical;

TEST_CASE("live links include lo, up with MTU 65536", "[live]") {
  auto links = make_live_source()->links();
  REQUIRE_FALSE(links.empty());
  auto lo = std::find_if(links.begin(), links.end(), [](const Link& l) { return l.name == "lo"; });
  REQUIRE(lo != links.end());
  CHECK(lo->mtu == 65536);
  CHECK(lo->admin_up);
  CHECK(lo->ifindex == 1);
  CHECK(lo->kind.empty());
  CHECK(lo->pci_address.empty());
  // lo has a speed attribute that answers EINVAL: absent, not an error.
  CHECK_FALSE(lo->speed_mbps.has_value());
  CHECK(std::is_sorted(links.begin(), links.end(),
                       [](const Link& a, const Link& b) { return a.ifindex < b.ifindex; }));
  for (const auto& l : links) {
    CAPTURE(l.name);
    CHECK(l.ifindex > 0);
    CHECK(l.mtu > 0);
    CHECK_FALSE(l.oper_state.empty());
    CHECK(std::filesystem::exists("/sys/class/net/" + l.name));
  }
}

TEST_CASE("live rdma answers without crashing", "[live]") {
  RdmaInventory r = make_live_source()->rdma();
  if (!r.supported) {
    CHECK(r.devices.empty());
    CHECK_FALSE(r.unsupported_reason.empty());
    CHECK_THAT(r.unsupported_reason, Catch::Contains("ibv_get_device_list"));
  } else {
    CHECK(r.unsupported_reason.empty());
    for (const auto& d : r.devices) {
      CAPTURE(d.name);
      CHECK_FALSE(d.name.empty());
      CHECK(d.node_guid.size() == 19);
      for (const auto& p : d.ports) CHECK_FALSE(p.state.empty());
    }
  }
}

TEST_CASE("live cpu, memory, thermal and accelerators match the kernel", "[live]") {
  auto src = make_live_source();
  CHECK(src->cpu().logical_cpus == sysconf(_SC_NPROCESSORS_ONLN));
  MemoryInfo mem = src->memory();
  struct sysinfo si {};
  REQUIRE(sysinfo(&si) == 0);
  CHECK(mem.total_kib == static_cast<std::uint64_t>(si.totalram) * si.mem_unit / 1024);
  CHECK(mem.available_kib <= mem.total_kib);
  for (const auto& t : src->thermal()) {
    CAPTURE(t.name);
    CHECK(t.source.rfind("/sys/class/", 0) == 0);
  }
  for (const auto& a : src->accelerators().pci) CHECK_FALSE(a.vendor.empty());
}
