// The live L6 readers inside a throw-away namespace with interesting routing:
// every RTM_GETROUTE answer is compared with `ip -j route get` and with the
// emulation replaying the captured state (so snapshot mode judges routes as
// the kernel does), and the rule dump with `ip -j rule`.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stack/l6_netplane/source.h"
#include "tests/support/netns_cluster.h"
#include "tests/support/skip.h"

using namespace hn::stack::netplane;
using hn::test::Netns;
using hn::test::NetnsEnter;

namespace {

nlohmann::json ip_json(const Netns& ns, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {hn::test::find_program("ip"), "-n", ns.name(), "-j"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = hn::test::run_process(argv, 10);
  if (r.exit_code != 0) return nullptr;
  return nlohmann::json::parse(r.out);
}

void build(const Netns& ns) {
  ns.ip("link set lo up");
  int i = 0;
  for (const std::string nic : {"eth0", "eth1", "eth2"}) {
    std::string peer = "p" + std::to_string(i++);
    ns.ip("link add " + nic + " type veth peer name " + peer);
    ns.ip("link set " + peer + " up");
    ns.ip("link set " + nic + " up");
  }
  ns.ip("addr add 10.30.0.1/24 dev eth0");
  ns.ip("addr add 10.10.0.1/24 dev eth1");
  ns.ip("addr add 10.10.0.9/24 dev eth1");
  ns.ip("addr add 10.20.0.1/24 dev eth2");
  ns.ip("addr add fd10::1/64 dev eth1 nodad");
  ns.ip("addr add 10.30.0.5/24 dev eth2");  // the same subnet on two NICs: dump order decides
  ns.ip("route add default via 10.30.0.254 dev eth0 metric 100");
  ns.ip("route add 10.10.0.99/32 dev eth0");
  ns.ip("route add 10.40.0.0/24 via 10.20.0.254 dev eth2 metric 5");
  ns.ip("route add 10.40.0.0/24 via 10.10.0.254 dev eth1 metric 7");
  ns.ip("route add table 100 default via 10.10.0.254 dev eth1");
  ns.ip("route add table 100 throw 10.20.0.0/16");
  ns.ip("route add blackhole 198.51.100.0/24");
  ns.ip("route add unreachable 192.0.2.0/25");
  ns.ip("route add prohibit 203.0.113.0/24");
  ns.ip("rule add pref 50 fwmark 7 lookup 100");
  ns.ip("rule add pref 100 from 10.10.0.0/24 lookup 100");
  ns.ip("route add table 101 172.16.0.0/12 dev eth2");
  // `not` inverts the whole selector: every packet except (from 10.30/24 AND
  // to 172.16/12) looks in table 101, which only knows 172.16/12.
  ns.ip("rule add pref 200 not from 10.30.0.0/24 to 172.16.0.0/12 lookup 101");
  ns.ip("rule add pref 300 iif lo to 172.31.0.0/16 lookup 100");
  ns.ip("rule add pref 400 oif eth2 lookup 100");
  ns.ip("rule add pref 500 to 100.64.0.0/10 prohibit");
}

}  // namespace

TEST_CASE("live route lookups agree with ip route get and with the emulation", "[netns]") {
  if (std::string why = hn::test::NetnsCluster::unavailable_reason(); !why.empty())
    hn::test::skip(why);
  Netns ns("hnl6-" + std::to_string(getpid()));
  build(ns);

  const std::vector<RouteQuery> queries = {
      {"10.10.0.2", ""},
      {"10.10.0.99", ""},
      {"10.10.0.99", "10.10.0.1"},
      {"8.8.8.8", ""},
      {"8.8.8.8", "10.10.0.1"},
      {"8.8.8.8", "10.30.0.1"},
      {"8.8.8.8", "10.10.0.9"},
      {"10.20.0.5", ""},
      {"10.20.0.5", "10.10.0.1"},
      {"10.40.0.3", ""},
      {"172.16.1.1", ""},
      {"172.16.1.1", "10.30.0.1"},
      {"172.31.0.1", ""},
      {"198.51.100.1", ""},
      {"192.0.2.1", ""},
      {"192.0.2.200", ""},
      {"203.0.113.1", ""},
      {"100.64.0.1", ""},
      {"10.10.0.1", ""},
      {"10.10.0.255", ""},
      {"fd10::2", ""},
      {"fd10::2", "fd10::1"},
      {"2001:db8::1", ""},
      {"10.30.0.77", ""},
      {"10.30.0.77", "10.30.0.5"},
      {"10.10.0.2", "10.10.0.77"},  // not an address of ours
      {"fd10::2", "fd10::9"},
      {"10.10.0.2", "127.0.0.1"},
  };
  std::vector<RouteLookup> live;
  NetState state;
  {
    NetnsEnter in(ns.name());
    auto source = make_live_netplane_source();
    state = source->read_all();
    live = source->route_get(queries);
  }
  REQUIRE(live.size() == queries.size());
  for (size_t i = 0; i < queries.size(); ++i) {
    const RouteQuery& q = queries[i];
    CAPTURE(q.dst, q.src, live[i].describe(), live[i].note);
    RouteLookup emu = emulate_route_get(state, q);
    CAPTURE(emu.describe());
    CHECK(live[i].error == emu.error);
    if (!live[i].ok()) {
      std::vector<std::string> args = {"route", "get", q.dst};
      if (!q.src.empty()) args.insert(args.end(), {"from", q.src});
      CHECK(ip_json(ns, args).is_null());  // ip refuses too
      continue;
    }
    CHECK(live[i].oif == emu.oif);
    CHECK(live[i].src == emu.src);
    CHECK(live[i].gateway == emu.gateway);
    CHECK(live[i].table == emu.table);
    CHECK(live[i].type == emu.type);
    CHECK(live[i].route_dst == emu.route_dst);
    CHECK(live[i].route_metric == emu.route_metric);

    std::vector<std::string> args = {"route", "get", q.dst};
    if (!q.src.empty()) args.insert(args.end(), {"from", q.src});
    auto j = ip_json(ns, args);
    REQUIRE(j.is_array());
    REQUIRE(j.size() == 1);
    CHECK(j[0].value("dev", "") == live[i].oif);
    CHECK(j[0].value("gateway", "") == live[i].gateway);
    if (j[0].contains("prefsrc")) CHECK(j[0]["prefsrc"] == live[i].src);
  }
  // Spot checks of what the kernel must answer here.
  CHECK(live[1].oif == "eth0");  // a /32 beats the connected /24
  CHECK(live[4].oif == "eth1");  // from the parameter address: rule 100, table 100
  CHECK(live[4].table == 100);
  CHECK(live[5].oif == "eth0");
  CHECK(live[8].oif == "eth2");   // thrown back to main from table 100
  CHECK(live[9].oif == "eth2");   // metric 5 beats 7
  CHECK(live[10].oif == "eth2");  // `not (from 10.30/24 to 172.16/12)` holds for an unbound socket
  CHECK(live[10].table == 101);
  CHECK(live[11].oif == "eth0");
  CHECK(live[13].error == "Invalid argument");
  CHECK(live[16].error == "Permission denied");
  CHECK(live[18].type == "local");
  CHECK(live[20].oif == "eth1");
  // Both 10.30.0.0/24 routes are captured (not folded into one, as libnl's cache would).
  int same_subnet = 0;
  for (const auto& r : state.routes) same_subnet += r.table == 254 && r.dst == "10.30.0.0/24";
  CHECK(same_subnet == 2);
}

TEST_CASE("live rules and IPv4 settings agree with ip rule and procfs", "[netns]") {
  if (std::string why = hn::test::NetnsCluster::unavailable_reason(); !why.empty())
    hn::test::skip(why);
  Netns ns("hnl6r-" + std::to_string(getpid()));
  build(ns);
  ns.sysctl("net/ipv4/conf/eth1/rp_filter", "1");
  ns.sysctl("net/ipv4/conf/all/arp_ignore", "1");
  ns.sysctl("net/ipv4/conf/eth2/arp_announce", "2");
  NetState state;
  {
    NetnsEnter in(ns.name());
    state = make_live_netplane_source()->read_all();
  }
  auto j = ip_json(ns, {"rule", "show"});
  REQUIRE(j.is_array());
  std::vector<Rule> v4;
  for (const auto& r : state.rules)
    if (r.family == 4) v4.push_back(r);
  REQUIRE(v4.size() == j.size());
  for (size_t i = 0; i < v4.size(); ++i) {
    CAPTURE(j[i].dump());
    CHECK(v4[i].priority == j[i]["priority"].get<int>());
    std::string src = j[i].value("src", "all");
    if (src != "all")
      CHECK(v4[i].src == src + "/" + std::to_string(j[i].value("srclen", 32)));
    else
      CHECK(v4[i].src.empty());
    CHECK(v4[i].invert == j[i].contains("not"));
    CHECK(v4[i].iif == j[i].value("iif", ""));
    CHECK(v4[i].oif == j[i].value("oif", ""));
  }
  bool has_prohibit = false;
  for (const auto& r : v4)
    has_prohibit = has_prohibit || (r.priority == 500 && r.action == "prohibit");
  CHECK(has_prohibit);
  CHECK(state.ipv4_conf.at("eth1").rp_filter == 1);
  CHECK(state.ipv4_conf.at("all").arp_ignore == 1);
  CHECK(state.ipv4_conf.at("eth2").arp_announce == 2);
  CHECK(state.ipv4_conf.count("p0") == 1);
}
