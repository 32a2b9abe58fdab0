#include "stack/l6_netplane/snapshot_yaml.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "stack/l6_netplane/source.h"

using namespace hn::stack::netplane;

TEST_CASE("net state round-trips through YAML") {
  NetState s;
  s.addresses = {{"eth1", "10.10.0.1", 24, 4, "global"}, {"eth1", "fe80::1", 64, 6, "link"}};
  s.routes = {{254, "default", "10.30.0.254", "eth0", "", 100, 4, "unicast", "dhcp"},
              {254, "10.10.0.0/24", "", "eth1", "10.10.0.1", 0, 4, "unicast", "kernel"},
              {100, "10.10.0.0/16", "", "eth1", "", 0, 4, "unicast", "static"}};
  Rule from;
  from.priority = 100;
  from.src = "10.10.0.0/24";
  from.table = 100;
  Rule odd;
  odd.priority = 200;
  odd.family = 6;
  odd.dst = "fd00::/8";
  odd.iif = "lo";
  odd.oif = "eth1";
  odd.fwmark = 7;
  odd.fwmask = 0xff;
  odd.invert = true;
  odd.action = "goto";
  odd.goto_priority = 300;
  odd.suppress_prefixlen = 0;
  odd.unmodelled = "uidrange";
  Rule main_rule;
  main_rule.priority = 32766;
  main_rule.table = 254;
  s.rules = {from, odd, main_rule};
  s.ipv4_conf["all"] = {0, 1, 2};
  s.ipv4_conf["eth1.100"] = {1, std::nullopt, 0};
  YAML::Emitter e;
  e << to_yaml(s);
  NetState back = net_state_from_yaml(YAML::Load(e.c_str()), "x", "netplane");
  CHECK(back == s);
}

TEST_CASE("snapshots without rules or ipv4_conf still load") {
  NetState s =
      net_state_from_yaml(YAML::Load("addresses: []\nroutes: []\n"), "old.yaml", "netplane");
  CHECK(s.rules.empty());
  CHECK(s.ipv4_conf.empty());
}

TEST_CASE("unknown rule keys, actions and settings are rejected by name") {
  CHECK_THROWS_WITH(net_state_from_yaml(YAML::Load("rules:\n  - {priority: 1, tabel: 5}\n"),
                                        "snap.yaml", "netplane"),
                    Catch::Contains("netplane.rules[0].tabel"));
  CHECK_THROWS_WITH(net_state_from_yaml(YAML::Load("rules:\n  - {priority: 1, action: jump}\n"),
                                        "snap.yaml", "netplane"),
                    Catch::Contains("unknown rule action 'jump'"));
  CHECK_THROWS_WITH(net_state_from_yaml(YAML::Load("ipv4_conf: {eth0: {rp_filtre: 1}}\n"),
                                        "snap.yaml", "netplane"),
                    Catch::Contains("netplane.ipv4_conf.eth0.rp_filtre"));
  CHECK_THROWS_WITH(net_state_from_yaml(YAML::Load("ipv4_conf: {eth0: {rp_filter: 3}}\n"),
                                        "snap.yaml", "netplane"),
                    Catch::Contains("rp_filter"));
}

TEST_CASE("unknown route keys are rejected") {
  YAML::Node n = YAML::Load("routes:\n  - {dst: default, oiff: eth0}\n");
  CHECK_THROWS_WITH(net_state_from_yaml(n, "snap.yaml", "netplane"),
                    Catch::Contains("netplane.routes[0].oiff"));
}

TEST_CASE("default_route_nic picks the lowest-metric main-table IPv4 default") {
  std::vector<Route> routes = {{254, "default", "", "eth0", "", 200, 4, "unicast", ""},
                               {254, "default", "", "eth1", "", 100, 4, "unicast", ""},
                               {100, "default", "", "eth2", "", 0, 4, "unicast", ""},
                               {254, "default", "", "eth3", "", 0, 6, "unicast", ""}};
  CHECK(default_route_nic(routes) == "eth1");
  CHECK(default_route_nic({}) == "");
}
