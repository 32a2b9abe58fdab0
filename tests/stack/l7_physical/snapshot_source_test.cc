#include <catch2/catch.hpp>

#include "stack/l7_physical/source.h"

using namespace hn::stack::physical;

TEST_CASE("snapshot source serves the captured inventory unchanged", "[snapshot_source]") {
  Inventory inv;
  Link lo;
  lo.name = "lo";
  lo.mtu = 65536;
  inv.links = {lo};
  inv.rdma.unsupported_reason = "no RDMA";
  inv.accelerators.device_nodes = {"/dev/nvidia0"};
  inv.cpu.logical_cpus = 8;
  inv.memory = {1024, 512};
  inv.thermal = {{"thermal_zone0 (acpitz)", "/sys/class/thermal/thermal_zone0/temp", 27.8}};

  auto src = make_snapshot_source(inv);
  CHECK(src->links() == inv.links);
  CHECK(src->rdma() == inv.rdma);
  CHECK(src->accelerators() == inv.accelerators);
  CHECK(src->cpu() == inv.cpu);
  CHECK(src->memory() == inv.memory);
  CHECK(src->thermal() == inv.thermal);
  CHECK(src->read_all() == inv);
  // Each call is a fresh copy: a caller editing one cannot change the next.
  auto links = src->links();
  links[0].mtu = 1;
  CHECK(src->links()[0].mtu == 65536);
}
