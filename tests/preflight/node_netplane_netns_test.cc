// `hnprecheck node` inside the hosts of a virtual cluster (network
// namespaces, tests/support/netns_cluster.h): one correct cluster, then one
// broken thing per scenario, each asserting the exact finding code and the
// NIC it names.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/netns_cluster.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using hn::test::NetnsCluster;
using hn::test::TempDir;
using nlohmann::json;

namespace {

void require_netns() {
  if (std::string why = NetnsCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
}

struct Run {
  int exit_code = -1;
  json report;
  std::string text;

  std::vector<json> all(const std::string& code) const {
    std::vector<json> v;
    for (const auto& f : report["findings"])
      if (f["code"] == code) v.push_back(f);
    return v;
  }
  // The one finding with this code and entity.
  json one(const std::string& code, const std::string& entity) const {
    std::vector<json> hits;
    for (const auto& f : all(code))
      if (f["entity"] == entity) hits.push_back(f);
    INFO(code << " for " << entity << " in:\n" << text);
    REQUIRE(hits.size() == 1);
    return hits.front();
  }
  std::vector<json> problems() const {
    std::vector<json> v;
    for (const auto& f : report["findings"])
      if (f["status"] != "PASS" && f["status"] != "SKIP") v.push_back(f);
    return v;
  }
};

Run node(const NetnsCluster& c, int host, const TempDir& dir,
         const std::vector<std::string>& extra = {}, const std::vector<std::string>& env = {}) {
  std::string profile = dir.path() + "/cluster.yaml";
  if (!std::ifstream(profile)) dir.write("cluster.yaml", c.profile_yaml());
  std::vector<std::string> args = {"node",   "--profile", profile,     "--node", c.node_name(host),
                                   "--json", "-",         "--no-color"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = c.hnprecheck(host, args, env);
  Run run;
  run.exit_code = r.exit_code;
  run.text = r.err;
  INFO("stderr: " << r.err);
  REQUIRE_NOTHROW(run.report = json::parse(r.out));
  return run;
}

void expect_fail(const json& f) {
  INFO(f.dump(2));
  CHECK(f["status"] == "FAIL");
  CHECK_FALSE(f["remediation"].get<std::string>().empty());
}

}  // namespace

TEST_CASE("netns: a correct cluster passes every plane check", "[netns]") {
  require_netns();
  hn::test::NetnsClusterOptions o;
  o.management_rate = "100mbit";
  NetnsCluster c(o);
  TempDir dir;
  for (int host = 0; host < c.size(); ++host) {
    Run r = node(c, host, dir);
    INFO(r.text);
    CHECK(r.problems().empty());
    CHECK(r.exit_code == 0);
    // What a correct node proves, plane by plane.
    CHECK(r.one("NET-PLANE-ADDRESS", "eth1")["evidence"]["address"] == c.address(host, "param"));
    CHECK(r.one("NET-PLANE-BINDING", "eth0")["status"] == "PASS");
    CHECK(r.one("NET-PLANE-PARAM-ON-MGMT", "eth0")["status"] == "PASS");
    CHECK(r.one("NET-PLANE-SHARED-NIC", "planes")["status"] == "PASS");
    json peer = r.one("NET-ROUTE-PEER", "plane param");  // passing peers are summarised
    CHECK(peer["evidence"]["peer"] == c.address(1 - host, "param"));
    CHECK(peer["evidence"]["nic"] == "eth1");
    CHECK(peer["evidence"]["source"] == c.address(host, "param"));
    CHECK(r.one("NET-ROUTE-SUBNET", "10.20.0.0/24")["evidence"]["nic"] == "eth2");
    CHECK(r.all("NET-SYSCTL-RP-FILTER").size() == 3);
    CHECK(r.all("NET-SYSCTL-ARP-IGNORE").size() == 3);
    CHECK(r.all("NET-SYSCTL-ARP-ANNOUNCE").size() == 3);
    CHECK(r.one("HW-NIC-MTU", "eth1")["evidence"]["mtu"] == "9000");
  }
}

TEST_CASE("netns: parameter and management NICs swapped on one host", "[netns]") {
  require_netns();
  NetnsCluster c;
  const auto& h = c.host(0);
  h.ip("addr flush dev eth0");
  h.ip("addr flush dev eth1");
  h.ip("addr add 10.10.0.1/24 dev eth0");
  h.ip("addr add 10.30.0.1/24 dev eth1");
  h.ip("route replace default via 10.30.0.254 dev eth1");
  TempDir dir;
  Run r = node(c, 0, dir);
  CHECK(r.exit_code == 1);
  json param = r.one("NET-PLANE-PARAM-ON-MGMT", "eth0");  // parameter address on the mgmt NIC
  expect_fail(param);
  CHECK(param["evidence"]["plane"] == "param");
  CHECK(param["evidence"]["plane_nic"] == "eth1");
  CHECK(param["evidence"]["mgmt_plane"] == "mgmt");
  json mgmt = r.one("NET-PLANE-BINDING", "eth1");  // management address on the parameter NIC
  expect_fail(mgmt);
  CHECK(mgmt["evidence"]["plane"] == "mgmt");
  CHECK(mgmt["evidence"]["plane_nic"] == "eth0");
  CHECK(mgmt["evidence"]["nic_plane"] == "plane param");
  expect_fail(r.one("NET-PLANE-ADDRESS", "eth1"));
  json peer = r.one("NET-ROUTE-PEER", "10.10.0.2");
  expect_fail(peer);
  CHECK(peer["evidence"]["nic"] == "eth0");
  // The other host is fine.
  CHECK(node(c, 1, dir).problems().empty());
}

TEST_CASE("netns: the wrong MTU on one host, on the node and across nodes", "[netns]") {
  require_netns();
  NetnsCluster c;
  c.host(0).ip("link set eth1 mtu 1500");
  TempDir dir;
  Run r = node(c, 0, dir);
  json mtu = r.one("HW-NIC-MTU", "eth1");
  expect_fail(mtu);
  CHECK(mtu["evidence"]["mtu"] == "1500");
  CHECK(r.exit_code == 1);

  // Snapshots of both hosts compared: the odd node is named.
  std::vector<std::string> snaps;
  for (int host = 0; host < c.size(); ++host) {
    auto s = c.hnprecheck(host, {"snapshot", "--out", "-"});
    REQUIRE(s.exit_code == 0);
    std::string text = s.out;
    auto at = text.find("\nhostname: ");
    REQUIRE(at != std::string::npos);
    // Every namespace shares the machine's hostname; give each its node name.
    text.replace(at, text.find('\n', at + 1) - at, "\nhostname: " + c.node_name(host));
    snaps.push_back(dir.write("host" + std::to_string(host) + ".yaml", text));
  }
  auto x = hn::test::run_process({HN_BINARY, "consistency", "--profile",
                                  dir.path() + "/cluster.yaml", snaps[0], snaps[1], "--json", "-"});
  CHECK(x.exit_code == 1);
  json report = json::parse(x.out);
  bool found = false;
  for (const auto& f : report["findings"]) {
    if (f["code"] != "NET-XNODE-MTU") continue;
    if (f["entity"] == "plane param") {
      found = true;
      CHECK(f["status"] == "FAIL");
      CHECK(f["evidence"]["odd"] == "host0");
      CHECK(f["evidence"]["node host0"] == "1500");
      CHECK(f["evidence"]["node host1"] == "9000");
    } else {
      CHECK(f["status"] == "PASS");
    }
  }
  CHECK(found);
}

TEST_CASE("netns: a missing route", "[netns]") {
  require_netns();
  NetnsCluster c;
  c.host(0).ip("route del 10.10.0.0/24 dev eth1");
  TempDir dir;
  Run r = node(c, 0, dir);
  json subnet = r.one("NET-ROUTE-SUBNET", "10.10.0.0/24");
  expect_fail(subnet);
  CHECK(subnet["evidence"]["nic"] == "eth0");  // the default route won
  CHECK_THAT(subnet["evidence"]["route"].get<std::string>(),
             Catch::StartsWith("default via 10.30.0.254 dev eth0"));
  CHECK(r.one("NET-ROUTE-PEER", "10.10.0.2")["evidence"]["nic"] == "eth0");
  CHECK(r.exit_code == 1);
}

TEST_CASE("netns: a more specific route sends parameter traffic out of the management NIC",
          "[netns]") {
  require_netns();
  NetnsCluster c;
  c.host(0).ip("route add 10.10.0.2/32 dev eth0");
  TempDir dir;
  Run r = node(c, 0, dir);
  json peer = r.one("NET-ROUTE-PEER", "10.10.0.2");
  expect_fail(peer);
  CHECK(peer["evidence"]["nic"] == "eth0");
  CHECK(peer["evidence"]["expected_nic"] == "eth1");
  CHECK_THAT(peer["message"].get<std::string>(),
             Catch::Contains("the route that won: 10.10.0.2/32 dev eth0"));
  CHECK(r.one("NET-ROUTE-SUBNET", "10.10.0.0/24")["status"] == "PASS");  // only that peer
  CHECK(r.exit_code == 1);
}

TEST_CASE("netns: strict rp_filter with asymmetric routing", "[netns]") {
  require_netns();
  NetnsCluster c;
  // The kernel applies max(all, eth1): lower all, make eth1 strict.
  c.host(0).sysctl("net/ipv4/conf/all/rp_filter", "0");
  c.host(0).sysctl("net/ipv4/conf/eth1/rp_filter", "1");
  c.host(0).ip("route add 10.10.0.2/32 dev eth0");  // replies to 10.10.0.2 leave via eth0
  TempDir dir;
  Run r = node(c, 0, dir);
  json asym = r.one("NET-SYSCTL-RP-ASYMMETRIC", "eth1");
  expect_fail(asym);
  CHECK(asym["evidence"]["peer"] == "10.10.0.2");
  CHECK(asym["evidence"]["route_nic"] == "eth0");
  json rp = r.one("NET-SYSCTL-RP-FILTER", "eth1");
  CHECK(rp["status"] == "WARN");
  CHECK(rp["evidence"]["value"] == "1");
  CHECK(rp["evidence"]["all"] == "0");
  CHECK(rp["evidence"]["iface"] == "1");
  CHECK(r.one("NET-SYSCTL-RP-FILTER", "eth2")["status"] == "PASS");  // eth2 stays loose
  CHECK(r.exit_code == 1);
}

TEST_CASE("netns: a link down", "[netns]") {
  require_netns();
  NetnsCluster c;
  c.host(0).ip("link set eth2 down");
  TempDir dir;
  Run r = node(c, 0, dir);
  json state = r.one("HW-NIC-STATE", "eth2");
  expect_fail(state);
  CHECK(state["evidence"]["admin"] == "down");
  // The connected route went with the link: storage traffic would use the default route.
  CHECK(r.one("NET-ROUTE-SUBNET", "10.20.0.0/24")["evidence"]["nic"] == "eth0");
  CHECK(r.exit_code == 1);
}

TEST_CASE("netns: a parameter-plane address duplicated on the management NIC", "[netns]") {
  require_netns();
  NetnsCluster c;
  c.host(0).ip("addr add 10.10.0.1/24 dev eth0");
  TempDir dir;
  Run r = node(c, 0, dir);
  json f = r.one("NET-PLANE-PARAM-ON-MGMT", "eth0");
  expect_fail(f);
  CHECK(f["evidence"]["address"] == "10.10.0.1");
  CHECK(f["evidence"]["plane_nic"] == "eth1");
  CHECK(f["evidence"]["mgmt_plane"] == "mgmt");
  CHECK(r.one("NET-PLANE-ADDRESS", "eth1")["status"] == "PASS");  // it is on eth1 too
  CHECK(r.exit_code == 1);
}

TEST_CASE("netns: NCCL_SOCKET_IFNAME resolving to the management NIC", "[netns]") {
  require_netns();
  NetnsCluster c;
  TempDir dir;
  Run r = node(c, 0, dir, {}, {"NCCL_SOCKET_IFNAME=eth0"});
  json f = r.one("NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME");
  expect_fail(f);
  CHECK(f["evidence"]["nic"] == "eth0");
  CHECK(f["evidence"]["selected_planes"] == "plane mgmt");
  CHECK(f["evidence"]["origin"] == "environment");
  CHECK(r.exit_code == 1);

  // From the job's env file (it wins over the environment): a prefix that
  // also matches the other planes' NICs, then the exact parameter NIC.
  std::string env = dir.write("job.env", "# job\nexport NCCL_SOCKET_IFNAME=eth\n");
  r = node(c, 0, dir, {"--env", env}, {"NCCL_SOCKET_IFNAME==eth1"});
  f = r.one("NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME");
  expect_fail(f);
  CHECK(f["evidence"]["selected"] == "eth0, eth1, eth2");
  CHECK(f["evidence"]["nic"] == "eth0");
  CHECK(f["evidence"]["origin"] == env + ":2");
  dir.write("job.env", "NCCL_SOCKET_IFNAME==eth1\n");
  r = node(c, 0, dir, {"--env", env});
  CHECK(r.one("NET-COMM-IFNAME", "NCCL_SOCKET_IFNAME")["status"] == "PASS");
  CHECK(r.exit_code == 0);
}

TEST_CASE("netns: HCCL_SOCKET_IFNAME=^eth excludes every real NIC", "[netns]") {
  require_netns();
  NetnsCluster c;
  TempDir dir;
  Run r = node(c, 0, dir, {}, {"HCCL_SOCKET_IFNAME=^eth"});
  json f = r.one("NET-COMM-IFNAME", "HCCL_SOCKET_IFNAME");
  expect_fail(f);
  CHECK(f["evidence"]["nic"] == "lo");  // all that is left is loopback
  CHECK(f["evidence"]["selected_planes"] == "loopback");
  CHECK(r.exit_code == 1);
}

TEST_CASE("netns: two planes with gateways need a source rule, checked with ip rule", "[netns]") {
  require_netns();
  NetnsCluster c;
  const auto& h = c.host(0);
  // The parameter plane gets its own gateway, but the main table's default
  // route (metric 0, via the management NIC) still wins for its traffic.
  h.ip("route add default via 10.10.0.254 dev eth1 metric 200");
  TempDir dir;
  Run r = node(c, 0, dir);
  json policy = r.one("NET-ROUTE-POLICY", "eth1");
  expect_fail(policy);
  CHECK(policy["evidence"]["nic"] == "eth0");
  CHECK(policy["evidence"]["other_plane"] == "plane mgmt");
  CHECK(r.exit_code == 1);
  // A plane table and a source rule: traffic from the plane address now
  // leaves through the plane's gateway, and its own subnet stays on-link.
  h.ip("route add 10.10.0.0/24 dev eth1 src 10.10.0.1 table 100");
  h.ip("route add default via 10.10.0.254 dev eth1 table 100");
  h.ip("rule add from 10.10.0.1 lookup 100 pref 100");
  r = node(c, 0, dir);
  policy = r.one("NET-ROUTE-POLICY", "eth1");
  CHECK(policy["status"] == "PASS");
  CHECK_THAT(policy["message"].get<std::string>(),
             Catch::Contains("default via 10.10.0.254 dev eth1 src 10.10.0.1 table 100"));
  CHECK(r.problems().empty());
  CHECK(r.exit_code == 0);
}

TEST_CASE("netns: a snapshot of a host replays to the same L6 findings as the live run",
          "[netns]") {
  require_netns();
  NetnsCluster c;
  const auto& h = c.host(0);
  h.sysctl("net/ipv4/conf/all/rp_filter", "0");
  h.sysctl("net/ipv4/conf/eth1/rp_filter", "1");
  h.ip("route add 10.10.0.2/32 dev eth0");
  h.ip("addr add 10.20.0.77/24 dev eth0");
  h.ip("route add default via 10.10.0.254 dev eth1 table 100");
  h.ip("rule add from 10.10.0.0/24 to 10.20.0.0/16 lookup 100 pref 100");
  TempDir dir;
  Run live = node(c, 0, dir);
  auto snap = c.hnprecheck(0, {"snapshot", "--out", "-"});
  REQUIRE(snap.exit_code == 0);
  std::string file = dir.write("host0.yaml", snap.out);
  Run replay = node(c, 0, dir, {"--snapshot", file});
  auto l6 = [](const Run& r) {
    std::vector<std::string> v;
    for (const auto& f : r.report["findings"])
      if (f["layer"] == "L6")
        v.push_back(f["code"].get<std::string>() + " " + f["entity"].get<std::string>() + " " +
                    f["status"].get<std::string>() + " " + f["message"].get<std::string>());
    std::sort(v.begin(), v.end());
    return v;
  };
  CHECK(l6(live) == l6(replay));
  CHECK(l6(live).size() > 20);
  CHECK(live.problems().size() >= 3);
}
