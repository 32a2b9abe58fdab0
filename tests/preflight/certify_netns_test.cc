// `hnprecheck certify` across three network namespaces as hosts, with the
// management (eth0), parameter (eth1) and storage (eth2) planes on separate
// bridges: a healthy cluster is certified, and each fault below, injected on
// one host or pair, makes certify exit 1 naming the code and the host.

#include <catch2/catch.hpp>

#include <signal.h>

#include "tests/preflight/certify_cluster.h"
#include "tests/support/skip.h"

using hn::test::CertifyOptions;
using hn::test::CertifyRun;
using hn::test::NetnsCluster;
using nlohmann::json;

namespace {

// Small sizes and a short link budget: the machine is shared, and a
// blackholed pair costs one budget.
const std::vector<std::string> kArgs = {"--sizes",        "64K,1M", "--iters",    "3",
                                        "--link-timeout", "2",      "--log-ranks"};

NetnsCluster make_cluster() {
  if (std::string why = NetnsCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
  if (hn::test::find_program("unshare").empty()) hn::test::skip("unshare (util-linux) is missing");
  return NetnsCluster(hn::test::certify_cluster_options(3));
}

CertifyRun certify(const NetnsCluster& c, std::vector<std::string> extra = {}) {
  CertifyOptions o;
  o.profile_yaml = c.profile_yaml();
  o.args = kArgs;
  o.args.insert(o.args.end(), extra.begin(), extra.end());
  return hn::test::run_certify(c, o);
}

// The single FAIL finding with this code; its host and entity.
json one_fail(const CertifyRun& r, const std::string& code) {
  auto f = r.findings(code, "FAIL");
  INFO(r.all_output());
  REQUIRE(f.size() == 1);
  return f[0];
}

}  // namespace

TEST_CASE("certify netns: a healthy three-host cluster is certified") {
  NetnsCluster c = make_cluster();
  CertifyRun r = certify(c);
  INFO(r.all_output());
  REQUIRE(r.exit_codes == std::vector<int>{0, 0, 0});
  REQUIRE(r.certificate.is_object());
  CHECK(r.certificate["verdict"] == "certified");
  CHECK(r.certificate["hosts"].size() == 3);
  CHECK(r.certificate["hosts"][1]["node"] == "host1");
  CHECK(r.certificate["launcher"] == "torchrun");
  // Every link of the pattern, all collectives verified, the proof per host.
  CHECK(r.findings("COMM-LINK-PLANE", "PASS").size() == 1);
  CHECK(r.findings("COMM-COLL-CORRECT", "PASS").size() == 4);
  auto proof = r.findings("NET-TRAFFIC-PLANE", "PASS");
  REQUIRE(proof.size() == 3);
  for (const auto& f : proof) CHECK(f["metrics"]["plane_share"]["value"].get<double>() >= 95);
  CHECK(r.findings("COMM-LINK-SLOW", "PASS").size() == 1);
  // Every measured pair's traffic proven on the plane NIC, per host.
  CHECK(r.findings("NET-TRAFFIC-PAIR", "PASS").size() == 3);
  // Bytes per NIC are in the certificate, and the plane NIC carried them.
  bool eth1 = false;
  for (const auto& m : r.certificate["metrics"])
    if (m["name"] == "nic.tx_bytes" && m["labels"]["nic"] == "eth1" &&
        m["value"].get<double>() > 1e6)
      eth1 = true;
  CHECK(eth1);
  CHECK(r.out[1].empty());  // only rank 0 reports
  WARN("healthy 3-host certify took " << r.seconds << " s");
}

TEST_CASE("certify netns: NIC swap on one host (parameter and management addresses swapped)") {
  NetnsCluster c = make_cluster();
  const auto& h = c.host(1);
  h.ip("addr del " + c.address(1, "param") + "/24 dev eth1");
  h.ip("addr del " + c.address(1, "mgmt") + "/24 dev eth0");
  h.ip("addr add " + c.address(1, "param") + "/24 dev eth0");
  h.ip("addr add " + c.address(1, "mgmt") + "/24 dev eth1");
  CertifyRun r = certify(c);
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 1);
  bool named = false;
  for (const auto& f : r.findings("NET-PLANE-ADDRESS", "FAIL")) {
    CHECK(f["host"] == "host1");
    named = true;
  }
  CHECK(named);
  CHECK(one_fail(r, "NET-PLANE-PARAM-ON-MGMT")["host"] == "host1");
  // The links cannot mean anything on that plane: SKIP, naming the failure.
  CHECK_THAT(r.out[0], Catch::Contains("links       L3 L6  SKIP"));
  CHECK_THAT(r.out[0], Catch::Contains("failed on host1"));
}

TEST_CASE("certify netns: MTU mismatch on one host") {
  NetnsCluster c = make_cluster();
  c.host(2).ip("link set eth1 mtu 1500");
  CertifyRun r = certify(c);
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 1);
  json f = one_fail(r, "NET-XNODE-MTU");
  CHECK(f["evidence"]["odd"] == "host2");
  CHECK(one_fail(r, "HW-NIC-MTU")["host"] == "host2");
}

TEST_CASE("certify netns: the parameter plane blackholed between one pair") {
  NetnsCluster c = make_cluster();
  // host0 sends host2's parameter-plane frames to a MAC nobody has: a silent drop.
  c.host(0).ip("neigh replace " + c.address(2, "param") +
               " lladdr 02:00:00:00:00:99 dev eth1 nud permanent");
  CertifyRun r = certify(c);
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 1);
  json f = one_fail(r, "COMM-LINK-TIMEOUT");
  CHECK(f["entity"] == "host0 -> host2 plane param");
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains(c.address(0, "param")));
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains(c.address(2, "param")));
  CHECK(one_fail(r, "COMM-LINK-PLANE")["evidence"]["failed"] == "1");
  // Collectives on that plane are SKIP, naming the link that failed.
  CHECK_THAT(r.out[0], Catch::Contains("COMM-LINK-TIMEOUT host0 -> host2 plane param"));
}

TEST_CASE("certify netns: one host's parameter link rate-limited is named as the slow one") {
  NetnsCluster c = make_cluster();
  // 20 Mbit/s: far below what a veth carries even on a loaded machine (at
  // 100 Mbit/s a busy 2-core host's median link sometimes fell so low that
  // the limited one was within half of it).
  c.host(1).tc("qdisc add dev eth1 root tbf rate 20mbit burst 64kb latency 50ms");
  CertifyRun r = certify(c);
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 1);
  json f = one_fail(r, "COMM-LINK-SLOW");
  CHECK(f["host"] == "host1");
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("host1 sends slowly"));
  const double gbps = f["metrics"]["bandwidth"]["value"];
  CHECK(gbps < 0.0025 * 1.2);  // 20 Mbit/s = 0.0025 GB/s
  CHECK(gbps > 0);
}

TEST_CASE("certify netns: a /32 route sends one peer's parameter traffic via the management NIC") {
  NetnsCluster c = make_cluster();
  c.switch_ns().sysctl("net/ipv4/ip_forward", "1");
  c.host(0).ip("route add " + c.address(1, "param") + "/32 via " + c.gateway("mgmt") + " dev eth0");
  CertifyRun r = certify(c);
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 1);
  json f = one_fail(r, "NET-TRAFFIC-PLANE");
  CHECK(f["host"] == "host0");
  CHECK(f["evidence"]["carrier"] == "eth0");
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("eth0 carried"));
  CHECK(f["metrics"]["eth0.tx"]["value"].get<double>() > 1e6);
}

TEST_CASE("certify netns: a rank killed mid-phase is named - earlier phases stay in the report") {
  NetnsCluster c = make_cluster();
  CertifyOptions o;
  o.profile_yaml = c.profile_yaml();
  // Bigger collectives, so rank 2 dies inside the phase.
  o.args = {"--sizes", "64K,1M,16M", "--iters", "10", "--link-timeout", "2", "--log-ranks"};
  bool killed = false;
  o.while_running = [&](const std::vector<int>& pids, const hn::test::TempDir& dir) {
    if (hn::test::wait_for_text(dir.path() + "/err2", "phase bandwidth done", 60)) {
      kill(pids[2], SIGKILL);
      killed = true;
    }
  };
  CertifyRun r = hn::test::run_certify(c, o);
  INFO(r.all_output());
  REQUIRE(killed);
  CHECK(r.exit_codes[0] == 1);
  CHECK(r.exit_codes[1] == 0);
  json f = one_fail(r, "CERT-RANK-LOST");
  CHECK(f["host"] == "host2");
  CHECK(f["evidence"]["rank"] == "2");
  CHECK(f["evidence"]["phase"] == "collectives");
  // The phases before it are complete in the certificate.
  for (const auto& p : r.certificate["phases"]) {
    if (p["name"] == "hosts" || p["name"] == "links" || p["name"] == "bandwidth")
      CHECK(p["status"] == "PASS");
    if (p["name"] == "storage")
      CHECK_THAT(p["skipped_because"].get<std::string>(),
                 Catch::Contains("rank 2 on host2 was lost"));
  }
  CHECK(r.findings("COMM-LINK-PLANE", "PASS").size() == 1);
  CHECK(r.seconds < 60);
}
