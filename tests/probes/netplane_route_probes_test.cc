#include "probes/netplane_route_probes.h"

#include <algorithm>

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using stack::netplane::Route;
using stack::netplane::Rule;
using test::addr;
using test::connected;
using test::one;
using test::up_link;

namespace {

// param on eth1 with a peer in another rack (10.11.0.0/24, routed through
// 10.10.0.254); mgmt owns the main default route.
const char* kProfile =
    "version: 1\n"
    "nodes:\n"
    "  - {name: node0, addresses: {param: 10.10.0.1, mgmt: 10.30.0.1}}\n"
    "  - {name: node1, addresses: {param: 10.10.0.2, mgmt: 10.30.0.2}}\n"
    "planes:\n"
    "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1, peers: [10.10.0.2, "
    "10.11.0.5]}\n"
    "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n";

test::NetFixture node() {
  test::NetFixture f;
  f.profile_yaml = kProfile;
  f.inv.links = {up_link("eth0", 2), up_link("eth1", 3)};
  f.net.addresses = {addr("eth0", "10.30.0.1"), addr("eth1", "10.10.0.1")};
  f.net.routes = {{254, "default", "10.30.0.254", "eth0", "", 0, 4, "unicast", "boot"},
                  connected("10.30.0.0/24", "eth0", "10.30.0.1"),
                  connected("10.10.0.0/24", "eth1", "10.10.0.1")};
  return f;
}

Rule rule(int prio, int table, std::string src = "") {
  Rule r;
  r.priority = prio;
  r.table = table;
  r.src = std::move(src);
  return r;
}

}  // namespace

TEST_CASE("routes: subnet_probe_address picks the highest host address") {
  using stack::netplane::parse_prefix;
  CHECK(probes::subnet_probe_address(parse_prefix("10.10.0.0/24"), "10.10.0.1") == "10.10.0.254");
  CHECK(probes::subnet_probe_address(parse_prefix("10.10.0.0/24"), "10.10.0.254") == "10.10.0.253");
  CHECK(probes::subnet_probe_address(parse_prefix("10.0.0.0/8"), "") == "10.255.255.254");
  CHECK(probes::subnet_probe_address(parse_prefix("10.0.0.0/30"), "") == "10.0.0.2");
  CHECK(probes::subnet_probe_address(parse_prefix("10.0.0.0/31"), "").empty());
  CHECK(probes::subnet_probe_address(parse_prefix("fd10::/64"), "") == "fd10::ffff:ffff:ffff:fffe");
}

TEST_CASE("routes: a routed peer sharing mgmt's default route without a source rule") {
  auto fs = probes::check_plane_routes(node().context());
  const auto& near = one(fs, "NET-ROUTE-PEER", "plane param");  // passing peers, summarised
  CHECK(near.status == Status::kPass);
  CHECK(near.evidence.at("peer") == "10.10.0.2");
  CHECK(one(fs, "NET-ROUTE-SUBNET", "10.10.0.0/24").status == Status::kPass);
  const auto& peer = one(fs, "NET-ROUTE-PEER", "10.11.0.5");
  CHECK(peer.status == Status::kFail);
  CHECK(peer.evidence.at("nic") == "eth0");
  CHECK(peer.evidence.at("route") == "default via 10.30.0.254 dev eth0 src 10.10.0.1 table main");
  const auto& policy = one(fs, "NET-ROUTE-POLICY", "eth1");
  CHECK(policy.status == Status::kFail);
  CHECK(policy.message ==
        "traffic from 10.10.0.1 (plane param) to 10.11.0.5 leaves via eth0 (plane mgmt) over "
        "default via 10.30.0.254 dev eth0 src 10.10.0.1 table main; no source rule sends it to "
        "eth1");
}

TEST_CASE("routes: a source rule and a plane table put the routed peer back on the plane") {
  auto f = node();
  f.net.routes.push_back({100, "default", "10.10.0.254", "eth1", "", 0, 4, "unicast", "static"});
  auto own = connected("10.10.0.0/24", "eth1", "10.10.0.1");
  own.table = 100;  // without it the plane's own subnet would go through the gateway
  f.net.routes.push_back(own);
  f.net.rules = {rule(0, 255), rule(100, 100, "10.10.0.1/32"), rule(32766, 254)};
  auto fs = probes::check_plane_routes(f.context());
  // Both peers now follow table 100 (the rule matches everything from the
  // plane address): the near one on-link, the far one through the plane
  // gateway, so there is one passing summary per route.
  std::vector<std::string> summarised;
  for (const auto& x : fs)
    if (x.code == "NET-ROUTE-PEER" && x.entity == "plane param") {
      CHECK(x.status == Status::kPass);
      CHECK(x.evidence.at("route").find("table 100") != std::string::npos);
      summarised.push_back(x.evidence.at("peer"));
    }
  std::sort(summarised.begin(), summarised.end());
  CHECK(summarised == std::vector<std::string>{"10.10.0.2", "10.11.0.5"});
  const auto& policy = one(fs, "NET-ROUTE-POLICY", "eth1");
  CHECK(policy.status == Status::kPass);
  CHECK(policy.message ==
        "traffic from 10.10.0.1 (plane param) to 10.11.0.5 follows default via "
        "10.10.0.254 dev eth1 src 10.10.0.1 table 100");
  for (const auto& x : fs) {
    INFO(x.code << " " << x.entity << ": " << x.message);
    CHECK(x.status == Status::kPass);
  }
}

TEST_CASE("routes: a plane with its own gateway needs a source rule even without routed peers") {
  auto f = node();
  f.profile_yaml =
      "version: 1\nnodes: [{name: node0, addresses: {param: 10.10.0.1, mgmt: 10.30.0.1}}]\n"
      "planes:\n"
      "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}\n"
      "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n";
  f.net.routes.push_back({254, "default", "10.10.0.254", "eth1", "", 200, 4, "unicast", "static"});
  auto fs = probes::check_plane_routes(f.context());
  const auto& policy = one(fs, "NET-ROUTE-POLICY", "eth1");
  CHECK(policy.status == Status::kFail);
  CHECK(policy.evidence.at("target") == "198.51.100.1");
  CHECK(policy.evidence.at("other_plane") == "plane mgmt");
  CHECK(test::with_code(fs, "NET-ROUTE-PEER").empty());  // the probe address is not a peer
  f.net.rules = {rule(0, 255), rule(100, 100, "10.10.0.0/24"), rule(32766, 254)};
  f.net.routes.push_back({100, "default", "10.10.0.254", "eth1", "", 0, 4, "unicast", "static"});
  CHECK(one(probes::check_plane_routes(f.context()), "NET-ROUTE-POLICY", "eth1").status ==
        Status::kPass);
  // A route to one network through the plane's gateway needs no rule.
  f = node();
  f.profile_yaml =
      "version: 1\nnodes: [{name: node0, addresses: {param: 10.10.0.1}}]\n"
      "planes:\n  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}\n";
  f.net.routes.push_back(
      {254, "10.40.0.0/16", "10.10.0.254", "eth1", "", 0, 4, "unicast", "static"});
  CHECK(test::with_code(probes::check_plane_routes(f.context()), "NET-ROUTE-POLICY").empty());
}

TEST_CASE("routes: no route at all, and a plane without a known address") {
  auto f = node();
  f.net.routes.pop_back();                   // the parameter subnet's connected route
  f.net.routes.erase(f.net.routes.begin());  // and the default route
  auto fs = probes::check_plane_routes(f.context());
  const auto& s = one(fs, "NET-ROUTE-SUBNET", "10.10.0.0/24");
  CHECK(s.status == Status::kFail);
  CHECK(s.evidence.at("nic") == "none");
  CHECK(s.evidence.at("route") == "no route (Network is unreachable)");

  f = node();
  f.profile_yaml =
      "version: 1\nplanes:\n  - {name: p, type: parameter, nic: eth1, peers: [10.10.0.2]}\n";
  f.net.addresses.pop_back();  // eth1 has no address: judged as an unbound socket
  fs = probes::check_plane_routes(f.context());
  const auto& p = one(fs, "NET-ROUTE-PEER", "plane p");
  CHECK(p.status == Status::kPass);
  CHECK(p.evidence.at("expected_source") == "any");
  CHECK(test::with_code(fs, "NET-ROUTE-POLICY").empty());
}

TEST_CASE("routes: passing peers are summarised per route, failing ones listed up to a cap") {
  auto f = node();
  std::string peers;
  for (int i = 2; i < 42; ++i)
    peers += (i > 2 ? ", " : "") + std::string("10.10.0.") + std::to_string(i);
  f.profile_yaml =
      "version: 1\nnodes: [{name: node0, addresses: {param: 10.10.0.1}}]\nplanes:\n"
      "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1, peers: [" +
      peers + "]}\n";
  auto fs = probes::check_plane_routes(f.context());
  const auto& all = one(fs, "NET-ROUTE-PEER", "plane param");
  CHECK(all.status == Status::kPass);
  CHECK(all.message ==
        "traffic of plane param to 40 peers (10.10.0.2, 10.10.0.3, 10.10.0.4, ...) "
        "leaves via eth1 from 10.10.0.1 (10.10.0.0/24 dev eth1 src 10.10.0.1 table "
        "main)");
  CHECK(all.evidence.at("peers") == "40");

  f.net.routes.push_back({254, "10.10.0.0/26", "", "eth0", "", 0, 4, "unicast", "static"});
  fs = probes::check_plane_routes(f.context());
  auto peer_findings = test::with_code(fs, "NET-ROUTE-PEER");
  int failing = 0;
  for (const auto& x : peer_findings) failing += x.status == Status::kFail;
  CHECK(failing == 17);  // all 40 peers fall in the /26: 16 listed, then one for the other 24
  CHECK(one(fs, "NET-ROUTE-PEER", "10.10.0.2").evidence.at("nic") == "eth0");
  const auto& rest = one(fs, "NET-ROUTE-PEER", "plane param");
  CHECK(rest.status == Status::kFail);
  CHECK(rest.evidence.at("peer") == "24 more peers (10.10.0.18, ...)");
}

TEST_CASE("routes: a plane whose address is missing skips its route checks") {
  // The rack7 example's situation (docs/profile.md): mgmt on eth0 declares 10.30.0.1, but eth0
  // carries another network's address and the default route.
  test::NetFixture f;
  f.profile_yaml =
      "version: 1\n"
      "nodes:\n"
      "  - {name: node0, addresses: {mgmt: 10.30.0.1}}\n"
      "  - {name: node1, addresses: {mgmt: 10.30.0.2}}\n"
      "planes:\n"
      "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0, peers: [10.30.0.254]}\n";
  f.inv.links = {up_link("eth0", 2)};
  f.net.addresses = {addr("eth0", "192.0.2.2")};
  f.net.routes = {{254, "default", "192.0.2.1", "eth0", "", 0, 4, "unicast", "boot"},
                  connected("192.0.2.0/24", "eth0", "192.0.2.2")};
  auto fs = probes::check_plane_routes(f.context());
  REQUIRE(fs.size() == 2);
  const auto& peer = one(fs, "NET-ROUTE-PEER", "plane mgmt");
  CHECK(peer.status == Status::kSkip);
  CHECK(peer.message ==
        "not checked: address 10.30.0.1 of plane mgmt is on no NIC of this node (see "
        "NET-PLANE-ADDRESS)");
  CHECK(one(fs, "NET-ROUTE-SUBNET", "10.30.0.0/24").status == Status::kSkip);
  CHECK(test::with_code(fs, "NET-ROUTE-POLICY").empty());

  // Without a declared address, a subnet plane whose NIC has none in the
  // subnet is the same: reached "via a gateway from any source" is no pass.
  f.profile_yaml =
      "version: 1\nplanes:\n  - {name: p, type: parameter, subnet: 10.0.0.0/24, nic: eth0}\n";
  f.net.routes.push_back({254, "10.0.0.0/24", "192.0.2.1", "eth0", "", 0, 4, "unicast", "static"});
  fs = probes::check_plane_routes(f.context());
  const auto& s = one(fs, "NET-ROUTE-SUBNET", "10.0.0.0/24");
  CHECK(s.status == Status::kSkip);
  CHECK(s.message ==
        "not checked: no NIC of plane p (eth0) has an address in its subnet (see "
        "NET-PLANE-ADDRESS)");
}

TEST_CASE("routes: the plane subnet must be on-link, not behind a gateway") {
  auto f = node();
  Route via_gateway = {254, "10.10.0.0/24", "10.10.0.254", "eth1", "10.10.0.1", 0,
                       4,   "unicast",      "static"};
  f.net.routes.back() = via_gateway;
  auto fs = probes::check_plane_routes(f.context());
  const auto& s = one(fs, "NET-ROUTE-SUBNET", "10.10.0.0/24");
  CHECK(s.status == Status::kFail);
  CHECK(s.message ==
        "subnet 10.10.0.0/24 of plane param is reached via eth1 from 10.10.0.1 (through gateway "
        "10.10.0.254); expected on-link via eth1 from 10.10.0.1; the route that won: 10.10.0.0/24 "
        "via 10.10.0.254 dev eth1 src 10.10.0.1 table main");
}

TEST_CASE("routes: the policy finding names the other plane, never the plane itself") {
  // param's routed peer leaves through mgmt's default route; stor shares no NIC.
  auto fs = probes::check_plane_routes(node().context());
  const auto& policy = one(fs, "NET-ROUTE-POLICY", "eth1");
  CHECK(policy.evidence.at("other_plane") == "plane mgmt");
  // A default route on a NIC of no plane.
  auto f = node();
  f.inv.links.push_back(up_link("eth9", 9));
  f.net.addresses.push_back(addr("eth9", "192.0.2.2"));
  f.net.routes.front() = {254, "default", "192.0.2.1", "eth9", "", 0, 4, "unicast", "boot"};
  fs = probes::check_plane_routes(f.context());
  const auto& p = one(fs, "NET-ROUTE-POLICY", "eth1");
  CHECK(p.status == Status::kFail);
  CHECK(p.message ==
        "traffic from 10.10.0.1 (plane param) to 10.11.0.5 leaves via eth9 (no plane) over "
        "default via 192.0.2.1 dev eth9 src 10.10.0.1 table main; no source rule sends it to "
        "eth1");
}
