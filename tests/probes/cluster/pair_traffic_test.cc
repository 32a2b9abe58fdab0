// The per-pair traffic proof (probes/cluster/pair_traffic.h) on hand-made
// counter readings: a healthy host passes with its upper bound on bytes that
// left elsewhere, and each way a pair's traffic can leave the plane is
// caught, naming the pair, the NIC and the bytes.
#include "probes/cluster/pair_traffic.h"

#include <catch2/catch.hpp>

using namespace hn::probes::cluster;
using hn::reports::Finding;
using hn::reports::Status;

namespace {

constexpr std::uint64_t kMB = 1000000;

// Three hosts, every pair measured once both ways with 20 MB each way; the
// plane NIC eth1 carries it (plus 2 % headers), eth0 a little chatter.
std::vector<HostRounds> healthy() {
  std::vector<HostRounds> hosts(3);
  for (int h = 0; h < 3; ++h) {
    auto& x = hosts[static_cast<std::size_t>(h)];
    x.name = "host" + std::to_string(h);
    x.plane_nics = {"eth1"};
    x.address = "10.10.0." + std::to_string(h + 1);
    for (int p = 0; p < 3; ++p) {
      if (p == h) continue;
      PairRound r;
      r.peer = p;
      r.sent = r.received = 20 * kMB;
      r.delta["eth1"] = {20 * kMB * 102 / 100, 20 * kMB * 102 / 100};
      r.delta["eth0"] = {300, 200};
      r.delta["lo"] = {5 * kMB, 5 * kMB};
      x.rounds.push_back(r);
      if (p < h) x.seen_from[p] = "10.10.0." + std::to_string(p + 1);
    }
  }
  return hosts;
}

std::vector<Finding> of(const PairTrafficResult& r, Status st) {
  std::vector<Finding> out;
  for (const auto& f : r.findings)
    if (f.status == st) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("pair traffic: a healthy cluster passes per host, with its upper bound") {
  auto r = check_pair_traffic("param", healthy(), 0.95, "bandwidth");
  auto pass = of(r, Status::kPass);
  REQUIRE(pass.size() == 3);
  CHECK(of(r, Status::kFail).empty());
  CHECK(of(r, Status::kWarn).empty());
  CHECK(pass[0].host == "host0");
  CHECK_THAT(pass[0].message, Catch::Contains("the 40.0 MB it sent to 2 peer(s)"));
  CHECK_THAT(pass[0].message, Catch::Contains("its other NICs sent at most 400 B"));
  CHECK(pass[0].metrics.at("other_nic_tx").value == 400);
  // Loopback is never counted; the bound is a figure per host.
  REQUIRE(r.metrics.size() == 3);
  CHECK(r.metrics[0].name == "traffic.other_nic_tx_bytes");
  CHECK(r.metrics[0].value == 400);
}

TEST_CASE("pair traffic: one pair's bytes through another NIC are caught at the sender") {
  // A policy rule on host0 sends TCP to host2 through eth0: host0's eth1
  // carries only the acknowledgements of host2's stream.
  auto hosts = healthy();
  for (auto& r : hosts[0].rounds)
    if (r.peer == 2) {
      r.delta["eth1"] = {20 * kMB * 102 / 100, 400 * 1000};
      r.delta["eth0"] = {200, 20 * kMB * 102 / 100};
    }
  auto res = check_pair_traffic("param", hosts, 0.95, "bandwidth");
  auto f = of(res, Status::kFail);
  REQUIRE(f.size() == 1);
  CHECK(f[0].entity == "host0 -> host2 plane param");
  CHECK(f[0].host == "host0");
  CHECK(f[0].evidence.at("carrier") == "eth0");
  CHECK_THAT(f[0].message,
             Catch::Contains("only 2.0% of the 20.0 MB host0 sent left through eth1"));
  CHECK_THAT(f[0].message, Catch::Contains("eth0 sent 20.4 MB"));
  CHECK_THAT(f[0].remediation, Catch::Contains("ip route get 10.10.0.3 from 10.10.0.1"));
  CHECK(f[0].metrics.at("eth0.bytes").value > 20e6);
  // host0's other pair and the other hosts still pass.
  CHECK(of(res, Status::kPass).size() == 2);
}

TEST_CASE("pair traffic: bytes arriving on another NIC and a wrong source are caught") {
  auto hosts = healthy();
  for (auto& r : hosts[1].rounds)
    if (r.peer == 0) {
      r.delta["eth1"] = {100 * 1000, 20 * kMB * 102 / 100};
      r.delta["eth0"] = {20 * kMB * 102 / 100, 0};
    }
  hosts[2].seen_from[1] = "10.30.0.2";  // host1's connection from its management address
  auto res = check_pair_traffic("param", hosts, 0.95, "bandwidth");
  auto f = of(res, Status::kFail);
  REQUIRE(f.size() == 2);
  CHECK(f[0].entity == "host0 -> host1 plane param");
  CHECK_THAT(f[0].message, Catch::Contains("host1 received arrived on eth1; eth0 received"));
  CHECK(f[1].entity == "host1 -> host2 plane param");
  CHECK_THAT(f[1].message, Catch::Contains("from 10.30.0.2, not host1's plane address 10.10.0.2"));
}

TEST_CASE("pair traffic: unrelated traffic that could hide a misrouted share is a WARN") {
  auto hosts = healthy();
  hosts[2].rounds[0].delta["eth0"] = {0, 5 * kMB};  // 25 % of the round's payload
  auto res = check_pair_traffic("param", hosts, 0.95, "bandwidth");
  auto w = of(res, Status::kWarn);
  REQUIRE(w.size() == 1);
  CHECK(w[0].entity == "host2 -> host0 plane param");
  CHECK_THAT(w[0].message, Catch::Contains("up to that much of the pair's traffic may have left"));
  CHECK(of(res, Status::kFail).empty());
}

TEST_CASE("pair traffic: too little payload is not judged, and a host without rounds is left out") {
  auto hosts = healthy();
  for (auto& r : hosts[1].rounds) {
    r.sent = r.received = 1000;  // a failed round's few bytes
    r.delta["eth1"] = {0, 0};
  }
  hosts[2].rounds.clear();
  auto res = check_pair_traffic("param", hosts, 0.95, "bandwidth");
  CHECK(of(res, Status::kFail).empty());
  auto pass = of(res, Status::kPass);
  REQUIRE(pass.size() == 1);
  CHECK(pass[0].host == "host0");
}
