#include "probes/rdma_binding_probes.h"

#include "probes/physical_probes.h"

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using stack::physical::RdmaGid;
using test::addr;
using test::one;
using test::up_link;

namespace {

const std::string kV2 = "RoCE v2", kV1 = "IB/RoCE v1";
const std::string kMapped = "0000:0000:0000:0000:0000:ffff:0a0a:0001";  // ::ffff:10.10.0.1

test::NetFixture node(const std::string& rdma_yaml, std::vector<RdmaGid> gids,
                      const std::string& netdev = "ens1f0", const std::string& nic = "ens1f0") {
  test::NetFixture f;
  f.profile_yaml =
      "version: 1\nnodes: [{name: node0, addresses: {param: 10.10.0.1}}]\nplanes:\n"
      "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: " +
      nic + ", rdma: " + rdma_yaml + "}\n";
  f.inv.links = {up_link("eth0", 2), up_link("ens1f0", 4, 4200)};
  if (nic == "ens1f0.100") {
    auto v = up_link("ens1f0.100", 9, 4200);
    v.kind = "vlan";
    v.parent = "ens1f0";
    v.vlan_id = 100;
    f.inv.links.push_back(v);
  }
  f.net.addresses = {addr(nic, "10.10.0.1")};
  f.inv.rdma.supported = true;
  stack::physical::RdmaDevice d;
  d.name = "mlx5_0";
  stack::physical::RdmaPort p;
  p.state = "ACTIVE";
  p.link_layer = "Ethernet";
  p.active_mtu = 4096;
  p.netdev = netdev;
  p.gids = std::move(gids);
  d.ports = {p};
  stack::physical::RdmaDevice other = d;
  other.name = "mlx5_1";
  other.ports[0].netdev = "eth0";
  other.ports[0].gids = {};
  f.inv.rdma.devices = {other, d};
  return f;
}

}  // namespace

TEST_CASE("rdma binding: device bound to the plane NIC, RoCE v2 GID, index and MTU") {
  auto fs = probes::check_rdma_binding(
      node("{device: mlx5_0, gid_index: 3, mtu: 4096}",
           {{1, "fe80:0000:0000:0000:bace:f6ff:fe12:3456", kV2, "ens1f0"},
            {2, kMapped, kV1, "ens1f0"},
            {3, kMapped, kV2, "ens1f0"}})
          .context());
  for (const auto& f : fs) CHECK(f.status == Status::kPass);
  CHECK(one(fs, "NET-RDMA-GID", "mlx5_0/1").message ==
        "mlx5_0 port 1 has RoCE v2 GID 3 for 10.10.0.1 on ens1f0");
  CHECK(one(fs, "NET-RDMA-GID-INDEX", "mlx5_0/1").status == Status::kPass);
  CHECK(one(fs, "NET-RDMA-MTU", "mlx5_0/1").status == Status::kPass);
  CHECK(one(fs, "NET-RDMA-NETDEV", "mlx5_0/1").status == Status::kPass);
}

TEST_CASE("rdma binding: failures name device, port, NIC and what was found") {
  // Only a RoCE v1 GID carries the address: RoCE v2 is disabled.
  auto fs =
      probes::check_rdma_binding(node("{device: mlx5_0}", {{2, kMapped, kV1, "ens1f0"}}).context());
  const auto& g = one(fs, "NET-RDMA-GID", "mlx5_0/1");
  CHECK(g.status == Status::kFail);
  CHECK(g.message ==
        "mlx5_0 port 1 has no RoCE v2 GID carrying 10.10.0.1 (plane param); its "
        "GIDs: 2 " +
            kMapped + " (IB/RoCE v1)");
  // ... which is what a RoCE v1 plane wants.
  fs = probes::check_rdma_binding(
      node("{device: mlx5_0, gid_type: RoCEv1}", {{2, kMapped, kV1, "ens1f0"}}).context());
  CHECK(one(fs, "NET-RDMA-GID", "mlx5_0/1").status == Status::kPass);
  // Index and MTU differ from the profile.
  fs = probes::check_rdma_binding(
      node("{device: mlx5_0, gid_index: 3, mtu: 2048}", {{5, kMapped, kV2, "ens1f0"}}).context());
  CHECK(one(fs, "NET-RDMA-GID-INDEX", "mlx5_0/1").message ==
        "the RoCE v2 GID for 10.10.0.1 is at index 5, the profile expects 3");
  CHECK(one(fs, "NET-RDMA-MTU", "mlx5_0/1").status == Status::kFail);
  // The named device drives another NIC.
  fs = probes::check_rdma_binding(node("{device: mlx5_1}", {}).context());
  const auto& n = one(fs, "NET-RDMA-NETDEV", "mlx5_1/1");
  CHECK(n.status == Status::kFail);
  CHECK(n.message == "mlx5_1 port 1 is bound to eth0, not to ens1f0 (plane param)");
}

TEST_CASE("rdma binding: an unnamed device is found by its netdev, also under a VLAN link") {
  auto fs = probes::check_rdma_binding(
      node("{gid_index: 3}", {{3, kMapped, kV2, "ens1f0.100"}}, "ens1f0", "ens1f0.100").context());
  CHECK(one(fs, "NET-RDMA-NETDEV", "mlx5_0/1").status == Status::kPass);
  CHECK(one(fs, "NET-RDMA-GID", "mlx5_0/1").evidence.at("netdev") == "ens1f0.100");
  // No device serves the plane at all.
  fs = probes::check_rdma_binding(node("{}", {}, "ens9").context());
  CHECK(one(fs, "NET-RDMA-NETDEV", "rdma (param)").status == Status::kFail);
  // No RDMA in the kernel: SKIP with the reason.
  auto f = node("{device: mlx5_0}", {});
  f.inv.rdma = {};
  f.inv.rdma.unsupported_reason = "no RDMA support";
  fs = probes::check_rdma_binding(f.context());
  CHECK(one(fs, "NET-RDMA-NETDEV", "mlx5_0").status == Status::kSkip);
}

TEST_CASE("find_plane_gid matches IPv4-mapped and IPv6 GIDs of the wanted type") {
  stack::physical::RdmaPort p;
  p.gids = {{1, kMapped, kV2, "x"}, {4, "fd10:0000:0000:0000:0000:0000:0000:0001", kV2, "x"}};
  CHECK(probes::find_plane_gid(p, "RoCE v2", "10.10.0.1")->index == 1);
  CHECK(probes::find_plane_gid(p, "RoCE v2", "fd10::1")->index == 4);
  CHECK(probes::find_plane_gid(p, "RoCE v1", "10.10.0.1") == nullptr);
  CHECK(probes::find_plane_gid(p, "RoCE v2", "10.10.0.2") == nullptr);
  CHECK(probes::find_plane_gid(p, "RoCE v2", "garbage") == nullptr);
}

TEST_CASE("rdma: without a device name, L7's ACTIVE check judges the plane's device") {
  auto f = node("{}", {{3, kMapped, kV2, "ens1f0"}});
  f.inv.rdma.devices[0].ports[0].state = "DOWN";  // mlx5_1, first in the list, drives eth0
  auto fs = probes::check_rdma(f.context());
  const auto& port = one(fs, "HW-RDMA-PORT", "mlx5_0/1");
  CHECK(port.status == Status::kPass);
  CHECK(test::with_code(fs, "HW-RDMA-PORT").size() == 1);
}
