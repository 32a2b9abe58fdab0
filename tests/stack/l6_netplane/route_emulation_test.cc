// emulate_route_get() against hand-built tables whose answers follow from the
// kernel's rules: longest prefix, metric, rule priority, source selectors.
#include "stack/l6_netplane/route_lookup.h"

#include <catch2/catch.hpp>

using namespace hn::stack::netplane;

namespace {

Route route(int table, std::string dst, std::string oif, std::string gw = "", int metric = 0,
            std::string prefsrc = "", std::string type = "unicast", int family = 4) {
  return Route{table,  std::move(dst), std::move(gw),   std::move(oif), std::move(prefsrc),
               metric, family,         std::move(type), "static"};
}

Rule rule(int prio, int table, std::string src = "", std::string action = "lookup") {
  Rule r;
  r.priority = prio;
  r.table = table;
  r.src = std::move(src);
  r.action = std::move(action);
  return r;
}

// A three-plane node: mgmt eth0 (default route), param eth1, storage eth2.
NetState node() {
  NetState s;
  s.addresses = {{"lo", "127.0.0.1", 8, 4, "host"},      {"eth0", "10.30.0.1", 24, 4, "global"},
                 {"eth1", "10.10.0.1", 24, 4, "global"}, {"eth1", "10.10.0.9", 24, 4, "global"},
                 {"eth2", "10.20.0.1", 24, 4, "global"}, {"eth2", "fe80::2", 64, 6, "link"}};
  s.routes = {route(254, "default", "eth0", "10.30.0.254", 100),
              route(254, "10.30.0.0/24", "eth0", "", 0, "10.30.0.1"),
              route(254, "10.10.0.0/24", "eth1", "", 0, "10.10.0.1"),
              route(254, "10.20.0.0/24", "eth2", "", 0, "10.20.0.1"),
              route(255, "10.10.0.1/32", "eth1", "", 0, "10.10.0.1", "local"),
              route(255, "10.10.0.255/32", "eth1", "", 0, "10.10.0.1", "broadcast")};
  return s;
}

RouteLookup get(const NetState& s, std::string dst, std::string src = "") {
  return emulate_route_get(s, {std::move(dst), std::move(src)});
}

}  // namespace

TEST_CASE("emulation: connected routes, default route, local and broadcast") {
  NetState s = node();
  auto r = get(s, "10.10.0.2");
  CHECK(r.ok());
  CHECK(r.oif == "eth1");
  CHECK(r.src == "10.10.0.1");
  CHECK(r.gateway.empty());
  CHECK(r.table == 254);
  CHECK(r.route_dst == "10.10.0.0/24");
  CHECK(r.describe() == "10.10.0.0/24 dev eth1 src 10.10.0.1 table main");

  r = get(s, "192.0.2.7");
  CHECK(r.oif == "eth0");
  CHECK(r.gateway == "10.30.0.254");
  CHECK(r.src == "10.30.0.1");  // no prefsrc: the NIC's address in the gateway's subnet
  CHECK(r.describe() == "default via 10.30.0.254 dev eth0 src 10.30.0.1 table main metric 100");

  r = get(s, "10.10.0.1");  // the node's own address: local table, dev lo
  CHECK(r.type == "local");
  CHECK(r.oif == "lo");
  CHECK(r.table == 255);
  CHECK(get(s, "10.10.0.255").type == "broadcast");
}

TEST_CASE("emulation: the longest prefix wins, then the lowest metric") {
  NetState s = node();
  s.routes.push_back(route(254, "10.10.0.2/32", "eth0"));
  auto r = get(s, "10.10.0.2");
  CHECK(r.oif == "eth0");
  CHECK(r.route_dst == "10.10.0.2/32");
  CHECK(r.src == "10.30.0.1");
  CHECK(get(s, "10.10.0.3").oif == "eth1");

  s = node();
  s.routes.push_back(route(254, "10.10.0.0/24", "eth2", "", 50));
  CHECK(get(s, "10.10.0.3").oif == "eth1");  // metric 0 beats 50
  s.routes[2].metric = 60;
  CHECK(get(s, "10.10.0.3").oif == "eth2");
  CHECK(get(s, "10.10.0.3").route_metric == 50);
}

TEST_CASE("emulation: source rules only match sockets bound to the source") {
  NetState s = node();
  s.routes.push_back(route(100, "default", "eth1", "10.10.0.254"));
  s.rules = {rule(0, 255), rule(100, 100, "10.10.0.0/24"), rule(32766, 254), rule(32767, 253)};
  auto unbound = get(s, "192.0.2.7");
  CHECK(unbound.oif == "eth0");
  auto bound = get(s, "192.0.2.7", "10.10.0.1");
  CHECK(bound.oif == "eth1");
  CHECK(bound.table == 100);
  CHECK(bound.src == "10.10.0.1");
  CHECK(bound.gateway == "10.10.0.254");
  CHECK(get(s, "192.0.2.7", "10.30.0.1").oif == "eth0");

  s.rules[1].invert = true;  // not from 10.10.0.0/24
  CHECK(get(s, "192.0.2.7").oif == "eth1");
  CHECK(get(s, "192.0.2.7", "10.10.0.1").oif == "eth0");
}

TEST_CASE("emulation: no rules captured means the kernel's default rules") {
  NetState s = node();
  s.routes.erase(s.routes.begin());  // no default route in main
  s.routes.push_back(route(253, "198.51.100.0/24", "eth2"));
  CHECK(get(s, "198.51.100.1").oif == "eth2");  // the `default` table (253) is consulted last
  CHECK(get(s, "198.51.100.1").table == 253);
}

TEST_CASE("emulation: throw, suppress_prefixlength, nop, goto, iif, oif, fwmark") {
  NetState s = node();
  s.routes.push_back(route(100, "default", "eth2", "10.20.0.254"));
  s.routes.push_back(route(100, "192.0.2.0/24", "", "", 0, "", "throw"));
  s.rules = {rule(0, 255), rule(50, 100), rule(32766, 254)};
  CHECK(get(s, "198.51.100.1").oif == "eth2");
  CHECK(get(s, "192.0.2.1").oif == "eth0");  // thrown back to main

  s.rules = {rule(0, 255), rule(10, 254), rule(20, 100)};
  s.rules[1].suppress_prefixlen = 0;  // main, but not its default route
  CHECK(get(s, "198.51.100.1").oif == "eth2");
  CHECK(get(s, "10.10.0.2").oif == "eth1");

  s.rules = {rule(0, 255), rule(5, 0, "", "goto"), rule(10, 100), rule(20, 254)};
  s.rules[1].goto_priority = 20;
  CHECK(get(s, "198.51.100.1").oif == "eth0");  // jumped over table 100
  s.rules[1].action = "nop";
  CHECK(get(s, "198.51.100.1").oif == "eth2");

  for (auto setup : {+[](Rule& r) { r.iif = "eth1"; }, +[](Rule& r) { r.oif = "eth1"; },
                     +[](Rule& r) { r.fwmark = 7; }, +[](Rule& r) { r.unmodelled = "uidrange"; }}) {
    s.rules = {rule(0, 255), rule(10, 100), rule(20, 254)};
    setup(s.rules[1]);
    CHECK(get(s, "198.51.100.1").oif == "eth0");  // the rule does not apply to local output
  }
  s.rules = {rule(0, 255), rule(10, 100), rule(20, 254)};
  s.rules[1].iif = "lo";  // locally generated traffic does come from lo
  CHECK(get(s, "198.51.100.1").oif == "eth2");
  s.rules[1].unmodelled = "ipproto";
  CHECK_THAT(get(s, "198.51.100.1").note, Catch::Contains("ipproto"));
}

TEST_CASE("emulation: refusals name the kernel's error") {
  NetState s = node();
  s.routes = {route(254, "10.10.0.0/24", "eth1", "", 0, "10.10.0.1")};
  CHECK(get(s, "192.0.2.1").error == "Network is unreachable");
  CHECK(get(s, "192.0.2.1").describe() == "no route (Network is unreachable)");
  s.routes.push_back(route(254, "192.0.2.0/24", "", "", 0, "", "unreachable"));
  s.routes.push_back(route(254, "198.51.100.0/24", "", "", 0, "", "blackhole"));
  s.routes.push_back(route(254, "203.0.113.0/24", "", "", 0, "", "prohibit"));
  CHECK(get(s, "192.0.2.1").error == "No route to host");
  CHECK(get(s, "198.51.100.1").error == "Invalid argument");
  CHECK(get(s, "203.0.113.1").error == "Permission denied");
  s.rules = {rule(0, 255), rule(5, 0, "10.10.0.0/24", "prohibit"), rule(32766, 254)};
  CHECK(get(s, "10.10.0.2", "10.10.0.1").error == "Permission denied");
  CHECK_FALSE(get(s, "not-an-ip").ok());
  // A source the node does not have: IPv4 refuses, as the kernel does.
  CHECK(get(s, "10.10.0.2", "10.10.0.200").error == "Network is unreachable");
  s = node();
  CHECK(get(s, "10.10.0.2", "127.0.0.1").error == "Invalid argument");  // loopback source
}

TEST_CASE("emulation: IPv6 uses IPv6 routes and rules only") {
  NetState s = node();
  s.addresses.push_back({"eth1", "fd10::1", 64, 6, "global"});
  s.routes.push_back(route(254, "fd10::/64", "eth1", "", 256, "", "unicast", 6));
  s.routes.push_back(route(254, "default", "eth0", "fd30::fe", 1024, "", "unicast", 6));
  auto r = get(s, "fd10::2");
  CHECK(r.oif == "eth1");
  CHECK(r.src == "fd10::1");
  CHECK(get(s, "2001:db8::1").oif == "eth0");
}
