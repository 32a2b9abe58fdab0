#include "probes/netplane_binding_probes.h"

#include "probes/netplane_route_probes.h"
#include "probes/netplane_sysctl_probes.h"
#include "probes/physical_probes.h"
#include "probes/rdma_binding_probes.h"

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using test::addr;
using test::one;
using test::up_link;

namespace {

const char* kProfile =
    "version: 1\n"
    "nodes: [{name: node0, addresses: {param: 10.10.0.1, stor: 10.20.0.1, mgmt: 10.30.0.1}}]\n"
    "planes:\n"
    "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}\n"
    "  - {name: stor, type: storage, subnet: 10.20.0.0/24, nic: eth2}\n"
    "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n";

test::NetFixture healthy() {
  test::NetFixture f;
  f.profile_yaml = kProfile;
  f.inv.links = {up_link("lo", 1), up_link("eth0", 2), up_link("eth1", 3), up_link("eth2", 4),
                 up_link("eth3", 5)};
  f.net.addresses = {{"lo", "127.0.0.1", 8, 4, "host"},
                     addr("eth0", "10.30.0.1"),
                     addr("eth1", "10.10.0.1"),
                     addr("eth2", "10.20.0.1")};
  return f;
}

}  // namespace

TEST_CASE("binding: a healthy node passes every binding check once per plane") {
  auto fs = probes::check_plane_binding(healthy().context());
  for (const auto& f : fs) {
    INFO(f.code << " " << f.entity << ": " << f.message);
    CHECK(f.status == Status::kPass);
  }
  CHECK(test::with_code(fs, "NET-PLANE-ADDRESS").size() == 3);
  CHECK(test::with_code(fs, "NET-PLANE-BINDING").size() == 3);
  CHECK(test::with_code(fs, "NET-PLANE-SUBNET").size() == 3);
  CHECK(test::with_code(fs, "NET-PLANE-PARAM-ON-MGMT").size() == 1);
  CHECK(one(fs, "NET-PLANE-SHARED-NIC", "planes").message ==
        "planes param, stor, mgmt use distinct NICs");
  CHECK(one(fs, "NET-PLANE-ADDRESS", "eth1").message ==
        "eth1 carries 10.10.0.1/24, in subnet 10.10.0.0/24 of plane param");
  CHECK(test::with_code(fs, "NET-VLAN").empty());  // no plane is tagged
}

TEST_CASE("binding: a plane address on a NIC of no plane, and a subnet split") {
  auto f = healthy();
  f.net.addresses.push_back(addr("eth3", "10.20.0.1"));   // storage address on a spare NIC
  f.net.addresses.push_back(addr("eth3", "10.10.0.77"));  // and a parameter-subnet address
  auto fs = probes::check_plane_binding(f.context());
  const auto& b = one(fs, "NET-PLANE-BINDING", "eth3");
  CHECK(b.status == Status::kFail);
  CHECK(b.message ==
        "address 10.20.0.1 of plane stor is on eth3 (no plane); plane stor is bound to eth2");
  CHECK(b.remediation.find("ip addr del 10.20.0.1/24 dev eth3") != std::string::npos);
  const auto& s = one(fs, "NET-PLANE-SUBNET", "eth3");
  CHECK(s.status == Status::kFail);
  CHECK(s.message ==
        "subnet 10.10.0.0/24 of plane param is configured on eth3 (10.10.0.77, no "
        "plane); plane param is bound to eth1");
  CHECK(one(fs, "NET-PLANE-BINDING", "eth1").status == Status::kPass);  // param's own is fine
}

TEST_CASE("binding: parameter-subnet addresses on the management NIC have their own code") {
  auto f = healthy();
  f.net.addresses.push_back(addr("eth0", "10.10.0.50"));
  auto fs = probes::check_plane_binding(f.context());
  const auto& m = one(fs, "NET-PLANE-PARAM-ON-MGMT", "eth0");
  CHECK(m.status == Status::kFail);
  CHECK(m.message ==
        "10.10.0.50 of parameter plane param is configured on eth0, the NIC of "
        "management plane mgmt; plane param is bound to eth1");
  CHECK(test::with_code(fs, "NET-PLANE-SUBNET").size() == 3);  // not reported twice
  for (const auto& x : test::with_code(fs, "NET-PLANE-SUBNET")) CHECK(x.status == Status::kPass);
}

TEST_CASE("binding: a missing address, two planes on one NIC") {
  auto f = healthy();
  f.net.addresses[2] = addr("eth1", "10.10.0.9");  // not the declared 10.10.0.1
  f.profile_yaml += "  - {name: data, type: data, nic: eth2}\n";
  auto fs = probes::check_plane_binding(f.context());
  const auto& a = one(fs, "NET-PLANE-ADDRESS", "eth1");
  CHECK(a.status == Status::kFail);
  CHECK(a.message ==
        "10.10.0.1 (plane param) is not configured on eth1 (found: 10.10.0.9/24 on eth1)");
  CHECK(test::with_code(fs, "NET-PLANE-BINDING").size() == 3);  // param's: no PASS, nothing found
  const auto& s = one(fs, "NET-PLANE-SHARED-NIC", "eth2");
  CHECK(s.status == Status::kFail);
  CHECK(s.message == "eth2 is the NIC of plane stor and of plane data");
  // The subnet-less data plane takes the address it finds on its NIC.
  int on_eth2 = 0;
  for (const auto& x : test::with_code(fs, "NET-PLANE-ADDRESS"))
    if (x.entity == "eth2") on_eth2 += x.status == Status::kPass;
  CHECK(on_eth2 == 2);
  // A plane without subnet or address on a bare NIC has nothing to compare: SKIP.
  f.net.addresses.pop_back();
  f.net.addresses.pop_back();
  fs = probes::check_plane_binding(f.context());
  CHECK(test::with_code(fs, "NET-PLANE-ADDRESS").back().status == reports::Status::kSkip);
}

TEST_CASE("binding: VLAN kind, id and parent") {
  struct Case {
    std::string kind;
    std::optional<int> id;
    std::string parent;
    Status expected;
  };
  const Case cases[] = {{"vlan", 100, "eth1", Status::kPass},
                        {"vlan", 101, "eth1", Status::kFail},
                        {"vlan", 100, "eth2", Status::kFail},
                        {"", std::nullopt, "", Status::kFail},
                        {"macvlan", std::nullopt, "eth1", Status::kFail}};
  for (const auto& c : cases) {
    CAPTURE(c.kind, c.id.value_or(-1), c.parent);
    test::NetFixture f;
    f.profile_yaml =
        "version: 1\nplanes:\n"
        "  - {name: param, type: parameter, nic: eth1.100, vlan: {id: 100, parent: eth1}}\n";
    auto l = up_link("eth1.100", 7);
    l.kind = c.kind;
    l.vlan_id = c.id;
    l.parent = c.parent;
    f.inv.links = {up_link("eth1", 3), l};
    f.net.addresses = {addr("eth1.100", "10.10.0.1")};
    auto fs = probes::check_plane_binding(f.context());
    const auto& v = one(fs, "NET-VLAN", "eth1.100");
    CHECK(v.status == c.expected);
    if (c.expected == Status::kFail)
      CHECK(v.remediation.find("ip link add link eth1 name eth1.100 type vlan id 100") !=
            std::string::npos);
  }
}

TEST_CASE("binding: a VLAN plane on a physical NIC names the real parent and a working command") {
  struct Case {
    std::string vlan;     // the plane's vlan key
    std::string parent;   // expected_parent in the message
    std::string command;  // the remediation's command
  };
  const Case cases[] = {
      // No parent in the profile: eth0 itself would carry the VLAN.
      {"8", "its parent NIC", "ip link add link eth0 name eth0.8 type vlan id 8"},
      {"{id: 8, parent: bond0}", "bond0", "ip link add link bond0 name bond0.8 type vlan id 8"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.vlan);
    test::NetFixture f;
    f.profile_yaml =
        "version: 1\nplanes:\n  - {name: p, type: parameter, nic: eth0, vlan: " + c.vlan + "}\n";
    f.inv.links = {up_link("eth0", 2)};  // a physical NIC: no kind, no parent
    f.net.addresses = {addr("eth0", "10.10.0.1")};
    auto fs = probes::check_plane_binding(f.context());
    const auto& v = one(fs, "NET-VLAN", "eth0");
    CHECK(v.status == Status::kFail);
    CHECK(v.message ==
          "eth0 (plane p) has kind 'none', VLAN id none and parent none; plane p expects a vlan "
          "link with id 8 on " +
              c.parent);
    CHECK(v.message.find('<') == std::string::npos);
    CHECK(v.remediation.find("`" + c.command + "`") != std::string::npos);
    CHECK(v.remediation.find("name eth0 type vlan") == std::string::npos);  // never eth0 itself
  }
  // A VLAN link with the wrong id is replaced under its own name, on its parent.
  test::NetFixture f;
  f.profile_yaml =
      "version: 1\nplanes:\n  - {name: p, type: parameter, nic: eth1.100, vlan: 100}\n";
  auto l = up_link("eth1.100", 7);
  l.kind = "vlan";
  l.vlan_id = 101;
  l.parent = "eth1";
  f.inv.links = {up_link("eth1", 3), l};
  auto fs = probes::check_plane_binding(f.context());
  const auto& v = one(fs, "NET-VLAN", "eth1.100");
  CHECK(v.message.find("expects a vlan link with id 100 on eth1") != std::string::npos);
  CHECK(v.remediation.find(
            "`ip link del eth1.100 && ip link add link eth1 name eth1.100 type vlan id 100`") !=
        std::string::npos);
}

TEST_CASE("binding: a plane declared only by subnet that no NIC here serves is one FAIL") {
  auto f = healthy();
  f.profile_yaml += "  - {name: data, type: data, subnet: 10.50.0.0/24}\n";
  auto fs = probes::check_plane_binding(f.context());
  const auto& a = one(fs, "NET-PLANE-ADDRESS", "plane data");
  CHECK(a.status == Status::kFail);
  CHECK(a.message ==
        "an address in 10.50.0.0/24 (plane data) is not configured on any NIC of this node "
        "(found: 10.30.0.1/24 on eth0, 10.10.0.1/24 on eth1, 10.20.0.1/24 on eth2)");
  CHECK(a.remediation.find("on the NIC meant for plane data") != std::string::npos);
  CHECK(a.evidence.at("unresolved").find("no NIC here has an address in its subnet") !=
        std::string::npos);
  // Every other node-local check leaves the plane to that one finding.
  std::vector<reports::Finding> all = fs;
  auto ctx = f.context();
  for (auto check : {probes::check_plane_routes, probes::check_plane_nics,
                     probes::check_rdma_binding, probes::check_plane_sysctls})
    for (auto& x : check(ctx)) all.push_back(x);
  int about_data = 0;
  for (const auto& x : all) {
    auto it = x.evidence.find("plane");
    about_data += (it != x.evidence.end() && it->second == "data") ||
                  x.entity.find("data") != std::string::npos;
  }
  CHECK(about_data == 1);
  // Served by a NIC, the same plane passes.
  f.net.addresses.push_back(addr("eth3", "10.50.0.1"));
  CHECK(one(probes::check_plane_binding(f.context()), "NET-PLANE-ADDRESS", "eth3").status ==
        Status::kPass);
}

TEST_CASE("binding: a subnet configured on no NIC is not reported as configured") {
  auto f = healthy();
  f.net.addresses.erase(f.net.addresses.begin() + 1);  // eth0 has no mgmt address at all
  auto fs = probes::check_plane_binding(f.context());
  CHECK(one(fs, "NET-PLANE-ADDRESS", "eth0").status == Status::kFail);
  const auto& s = one(fs, "NET-PLANE-SUBNET", "eth0");
  CHECK(s.status == Status::kSkip);
  CHECK(s.message ==
        "not checked: plane mgmt's subnet 10.30.0.0/24 is configured on no NIC of this node "
        "(see NET-PLANE-ADDRESS)");
  // Where it is configured, the PASS names the subnet and the NIC.
  CHECK(one(fs, "NET-PLANE-SUBNET", "eth1").message ==
        "subnet 10.10.0.0/24 of plane param is configured only on eth1");
}
