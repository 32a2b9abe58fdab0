#include "probes/netplane_sysctl_probes.h"

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using stack::netplane::Ipv4Conf;
using test::addr;
using test::connected;
using test::one;
using test::up_link;

namespace {

test::NetFixture node(Ipv4Conf all, Ipv4Conf eth1) {
  test::NetFixture f;
  f.profile_yaml =
      "version: 1\n"
      "nodes:\n"
      "  - {name: node0, addresses: {param: 10.10.0.1, mgmt: 10.30.0.1}}\n"
      "  - {name: node1, addresses: {param: 10.10.0.2, mgmt: 10.30.0.2}}\n"
      "planes:\n"
      "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}\n"
      "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n";
  f.inv.links = {up_link("eth0", 2), up_link("eth1", 3)};
  f.net.addresses = {addr("eth0", "10.30.0.1"), addr("eth1", "10.10.0.1")};
  f.net.routes = {connected("10.30.0.0/24", "eth0", "10.30.0.1"),
                  connected("10.10.0.0/24", "eth1", "10.10.0.1")};
  f.net.ipv4_conf = {{"all", all}, {"eth0", {0, 1, 2}}, {"eth1", eth1}};
  return f;
}

}  // namespace

TEST_CASE("sysctls: the kernel applies max(all, NIC), each value has its verdict") {
  struct Case {
    int all, nic;
    Status rp, ignore, announce;
  };
  // Same value in all three settings, so one table covers them.
  const Case cases[] = {
      {0, 0, Status::kPass, Status::kWarn, Status::kWarn},
      {0, 1, Status::kWarn, Status::kPass, Status::kWarn},
      {1, 0, Status::kWarn, Status::kPass, Status::kWarn},
      {0, 2, Status::kPass, Status::kPass, Status::kPass},
      {2, 1, Status::kPass, Status::kPass, Status::kPass},  // max(2, 1) = 2
      {1, 2, Status::kPass, Status::kPass, Status::kPass},
  };
  for (const auto& c : cases) {
    CAPTURE(c.all, c.nic);
    auto fs =
        probes::check_plane_sysctls(node({c.all, c.all, c.all}, {c.nic, c.nic, c.nic}).context());
    CHECK(one(fs, "NET-SYSCTL-RP-FILTER", "eth1").status == c.rp);
    CHECK(one(fs, "NET-SYSCTL-ARP-IGNORE", "eth1").status == c.ignore);
    CHECK(one(fs, "NET-SYSCTL-ARP-ANNOUNCE", "eth1").status == c.announce);
    int effective = std::max(c.all, c.nic);
    CHECK(one(fs, "NET-SYSCTL-RP-FILTER", "eth1").evidence.at("value") ==
          std::to_string(effective));
    // Strict mode checks the reply paths; these are symmetric.
    if (effective == 1) CHECK(one(fs, "NET-SYSCTL-RP-ASYMMETRIC", "eth1").status == Status::kPass);
  }
}

TEST_CASE("sysctls: strict rp_filter with an asymmetric route is a FAIL naming both NICs") {
  auto f = node({0, 1, 2}, {1, 1, 2});
  f.net.routes.push_back({254, "10.10.0.2/32", "", "eth0", "", 0, 4, "unicast", "static"});
  auto fs = probes::check_plane_sysctls(f.context());
  const auto& a = one(fs, "NET-SYSCTL-RP-ASYMMETRIC", "eth1");
  CHECK(a.status == Status::kFail);
  CHECK(a.message ==
        "rp_filter on eth1 is strict and the route back to 10.10.0.2 leaves via eth0 "
        "(10.10.0.2/32 dev eth0 src 10.10.0.1 table main): the kernel drops replies "
        "from 10.10.0.2 that arrive on eth1");
  CHECK(one(fs, "NET-SYSCTL-RP-FILTER", "eth1")
            .remediation.find("/proc/sys/net/ipv4/conf/eth1/rp_filter") != std::string::npos);
}

TEST_CASE("sysctls: nothing on a single-homed node, unreadable values are skipped") {
  auto f = node({0, 0, 0}, {0, 0, 0});
  f.net.addresses.pop_back();  // eth1 has no address: one plane NIC with an address
  CHECK(probes::check_plane_sysctls(f.context()).empty());
  f = node({}, {});
  f.net.ipv4_conf.erase("eth0");
  auto fs = probes::check_plane_sysctls(f.context());
  CHECK(one(fs, "NET-SYSCTL-RP-FILTER", "eth1").status == Status::kSkip);
  CHECK(test::with_code(fs, "NET-SYSCTL-ARP-IGNORE").empty());
}
