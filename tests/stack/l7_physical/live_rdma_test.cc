// The ibverbs half cannot be pointed at a fixture; its formatting and the
// sysfs lookups it relies on can (tests/fixtures/sysfs/node-a/.../infiniband).

#include <catch2/catch.hpp>

#include "stack/l7_physical/live_readers.h"

using namespace hn::stack::physical;
using namespace hn::stack::physical::detail;

namespace {
const std::string kSys = std::string(HN_FIXTURE_DIR) + "/sysfs/node-a/sys";
}

TEST_CASE("format_gid prints eight groups of four hex digits like sysfs", "[live_rdma]") {
  const std::uint8_t link_local[16] = {0xfe, 0x80, 0,    0,    0,    0,    0,    0,
                                       0xba, 0xce, 0xf6, 0xff, 0xfe, 0x12, 0x34, 0x56};
  CHECK(format_gid(link_local) == "fe80:0000:0000:0000:bace:f6ff:fe12:3456");
  const std::uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 10, 0, 1};
  CHECK(format_gid(mapped) == "0000:0000:0000:0000:0000:ffff:0a0a:0001");
}

TEST_CASE("format_guid", "[live_rdma]") {
  CHECK(format_guid(0xb8cef60300123456ull) == "b8ce:f603:0012:3456");
  CHECK(format_guid(1) == "0000:0000:0000:0001");
}

TEST_CASE("mtu_enum_to_bytes", "[live_rdma]") {
  CHECK(mtu_enum_to_bytes(1) == 256);
  CHECK(mtu_enum_to_bytes(3) == 1024);
  CHECK(mtu_enum_to_bytes(5) == 4096);
  CHECK(mtu_enum_to_bytes(0) == 0);
  CHECK(mtu_enum_to_bytes(6) == 0);
}

TEST_CASE("port rate and GID attributes from sysfs", "[live_rdma]") {
  CHECK(port_rate(kSys, "mlx5_0", 1) == "100 Gb/sec (4X EDR)");
  CHECK(port_rate(kSys, "mlx5_0", 2) == "40 Gb/sec (4X QDR)");
  CHECK(port_rate(kSys, "mlx5_0", 3).empty());
  CHECK(port_rate(kSys, "mlx5_9", 1).empty());

  std::vector<RdmaGid> gids;
  for (int i : {0, 1, 2, 3}) {
    RdmaGid g;
    g.index = i;
    fill_gid_attrs(kSys, "mlx5_0", 1, g);
    gids.push_back(g);
  }
  CHECK(gids[0].type == "IB/RoCE v1");
  CHECK(gids[0].netdev == "ens1f0");
  CHECK(gids[1].type == "RoCE v2");
  CHECK(gids[2].type.empty());  // unpopulated entry: both files unreadable
  CHECK(gids[2].netdev.empty());
  CHECK(gids[3].type == "RoCE v2");
  CHECK(gids[3].netdev.empty());
}

TEST_CASE("port_netdev is the first GID netdev", "[live_rdma]") {
  CHECK(port_netdev({}).empty());
  CHECK(port_netdev({{0, "g", "RoCE v2", ""}, {1, "g", "RoCE v2", ""}}).empty());
  CHECK(port_netdev({{0, "g", "", ""}, {1, "g", "", "ens1f0"}, {2, "g", "", "bond0"}}) == "ens1f0");
}
