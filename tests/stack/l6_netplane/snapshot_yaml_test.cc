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
  YAML::Emitter e;
  e << to_yaml(s);
  NetState back = net_state_from_yaml(YAML::Load(e.c_str()), "x", "netplane");
  CHECK(back == s);
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
