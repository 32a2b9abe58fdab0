#include "probes/plane_consistency.h"

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using test::addr;
using test::one;
using test::up_link;

namespace {

const char* kProfile =
    "version: 1\n"
    "nodes:\n"
    "  - {name: n0, addresses: {param: 10.10.0.1}}\n"
    "  - {name: n1, addresses: {param: 10.10.0.2}}\n"
    "  - {name: n2, addresses: {param: 10.10.0.3}}\n"
    "planes:\n"
    "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1, mtu: 9000, rdma: {}}\n"
    "  - {name: mgmt, type: management, nic: eth0}\n";

probes::NodeReadings node(const formats::Profile& p, int i, int mtu, int gid_index) {
  probes::NodeReadings n;
  n.name = "n" + std::to_string(i);
  n.spec = p.find_node(n.name);
  n.links = {up_link("eth0", 2), up_link("eth1", 3, mtu)};
  std::string ip = "10.10.0." + std::to_string(i + 1);
  n.addresses = {addr("eth1", ip)};
  n.rdma.supported = true;
  stack::physical::RdmaDevice d;
  d.name = "mlx5_0";
  stack::physical::RdmaPort port;
  port.state = "ACTIVE";
  port.active_mtu = mtu >= 4200 ? 4096 : 1024;
  port.netdev = "eth1";
  char gid[64];
  std::snprintf(gid, sizeof gid, "0000:0000:0000:0000:0000:ffff:0a0a:%04x", i + 1);
  if (gid_index >= 0) port.gids = {{gid_index, gid, "RoCE v2", "eth1"}};
  d.ports = {port};
  n.rdma.devices = {d};
  return n;
}

}  // namespace

TEST_CASE("consistency: identical nodes pass, with each node's value in the evidence") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto fs = probes::check_plane_consistency(
      p, {node(p, 0, 9000, 3), node(p, 1, 9000, 3), node(p, 2, 9000, 3)});
  // Coverage, MTU for both planes, GID index and RDMA MTU for param.
  CHECK(fs.size() == 5);
  for (const auto& f : fs) CHECK(f.status == Status::kPass);
  CHECK(one(fs, "NET-XNODE-COVERAGE", "nodes").message ==
        "all 3 nodes the profile declares were compared");
  const auto& m = one(fs, "NET-XNODE-MTU", "plane param");
  CHECK(m.message == "plane param NIC MTU is 9000 on all 3 nodes");
  CHECK(m.evidence.at("node n1") == "9000");
}

TEST_CASE("consistency: the odd node is named, the profile breaks a tie") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto fs = probes::check_plane_consistency(
      p, {node(p, 0, 1500, 3), node(p, 1, 9000, 5), node(p, 2, 9000, 5)});
  const auto& m = one(fs, "NET-XNODE-MTU", "plane param");
  CHECK(m.status == Status::kFail);
  CHECK(m.message == "plane param NIC MTU differs across nodes: 1500 on n0; 9000 on n1, n2");
  CHECK(m.evidence.at("odd") == "n0");
  const auto& g = one(fs, "NET-XNODE-GID-INDEX", "plane param");
  CHECK(g.evidence.at("odd") == "n0");  // majority 5 (the profile names no index)
  CHECK(one(fs, "NET-XNODE-RDMA-MTU", "plane param").evidence.at("odd") == "n0");

  // Two nodes that differ: the one matching the profile's mtu is not the odd one.
  fs = probes::check_plane_consistency(p, {node(p, 0, 9000, 3), node(p, 1, 1500, 3)});
  CHECK(one(fs, "NET-XNODE-MTU", "plane param").evidence.at("odd") == "n1");
  // A node without the GID at all.
  fs = probes::check_plane_consistency(p, {node(p, 0, 9000, 3), node(p, 1, 9000, -1)});
  CHECK(one(fs, "NET-XNODE-GID-INDEX", "plane param").evidence.at("values") ==
        "3 on n0; no GID for 10.10.0.2 on n1");
}

TEST_CASE("consistency: a declared node without readings is a WARN naming it") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto fs = probes::check_plane_consistency(p, {node(p, 0, 9000, 3), node(p, 2, 9000, 3)});
  const auto& c = one(fs, "NET-XNODE-COVERAGE", "nodes");
  CHECK(c.status == Status::kWarn);
  CHECK(c.message ==
        "1 of the 3 nodes the profile declares had no snapshot and were not compared: n1");
  CHECK_FALSE(c.remediation.empty());
  for (const auto& f : fs)
    if (f.code != "NET-XNODE-COVERAGE") CHECK(f.status == Status::kPass);
  // A profile without nodes has nothing to cover.
  auto bare = formats::parse_profile(
      "version: 1\nplanes:\n  - {name: mgmt, type: management, nic: eth0}\n", "b.yaml");
  auto n0 = node(bare, 0, 1500, -1), n1 = node(bare, 1, 1500, -1);
  CHECK(test::with_code(probes::check_plane_consistency(bare, {n0, n1}), "NET-XNODE-COVERAGE")
            .empty());
}
