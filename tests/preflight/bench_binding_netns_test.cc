// "Verified on the stack" (issue 6), the interface half: in a virtual
// cluster of two hosts with a management (eth0) and a parameter (eth1)
// plane, `translate` turns NCCL_SOCKET_IFNAME=^docker,lo into an HCCL
// interface setting for the profile's parameter-plane NIC, and two bench
// ranks started with that env file (one per host, rendezvous on the
// management address, as torchrun's MASTER_ADDR usually is) bind their links
// to the parameter NIC: bench reports it (getsockname, SO_BINDTODEVICE), and
// the NICs' own byte counters show the allreduce's bytes on eth1 and only
// rendezvous chatter on eth0.

#include <catch2/catch.hpp>

#include <future>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/netns_cluster.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using hn::test::NetnsCluster;
using hn::test::run_process;
using hn::test::TempDir;

namespace {

constexpr long long kBytes = 4 << 20;  // allreduce size per call
constexpr int kIters = 10, kWarmup = 2;

long long counter(const NetnsCluster& c, int host, const std::string& nic, const char* which) {
  auto r = run_process({hn::test::find_program("ip"), "netns", "exec", c.host(host).name(), "cat",
                        "/sys/class/net/" + nic + "/statistics/" + which},
                       10);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return std::stoll(r.out);
}

struct Counters {
  long long tx = 0, rx = 0;
};

Counters counters(const NetnsCluster& c, int host, const std::string& nic) {
  return {counter(c, host, nic, "tx_bytes"), counter(c, host, nic, "rx_bytes")};
}

}  // namespace

TEST_CASE("netns: bench binds its links to the translated parameter-plane NIC") {
  if (std::string why = NetnsCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
  hn::test::NetnsClusterOptions o;
  o.planes = {{"mgmt", "management", "10.30.0", "eth0", 1500},
              {"param", "parameter", "10.10.0", "eth1", 9000}};
  NetnsCluster c(o);
  TempDir dir;

  // 1. translate with the cluster profile: ^docker,lo -> the param NIC.
  std::string profile = dir.write("cluster.yaml", c.profile_yaml());
  std::string in = dir.write("nccl.env", "NCCL_SOCKET_IFNAME=^docker,lo\n");
  std::string env = dir.path() + "/hccl.env";
  auto t = run_process({HN_BINARY, "translate", "--from", "nccl", "--to", "hccl", in, "--profile",
                        profile, "--out", env, "--local-port-range", "32768 60999"},
                       60);
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  std::string written = hn::test::read_file(env);
  INFO(written);
  REQUIRE_THAT(written, Catch::Contains("HCCL_SOCKET_IFNAME"));
  REQUIRE_THAT(written, Catch::Contains("=eth1"));

  // 2. one rank per host, the env file sourced as an operator would.
  Counters param0 = counters(c, 0, "eth1"), param1 = counters(c, 1, "eth1");
  Counters mgmt0 = counters(c, 0, "eth0"), mgmt1 = counters(c, 1, "eth0");
  auto rank = [&](int r) {
    return run_process(
        {hn::test::find_program("ip"),
         "netns",
         "exec",
         c.host(r).name(),
         "/bin/sh",
         "-c",
         "set -a; . \"$0\"; set +a; exec \"$@\"",
         env,
         HN_BINARY,
         "bench",
         "--transport",
         "tcp",
         "-b",
         "4M",
         "-e",
         "4M",
         "--iters",
         std::to_string(kIters),
         "--warmup",
         std::to_string(kWarmup),
         "--json",
         dir.path() + "/bench" + std::to_string(r) + ".json"},
        120,
        {"RANK=" + std::to_string(r), "WORLD_SIZE=2", "MASTER_ADDR=" + c.address(0, "mgmt"),
         "MASTER_PORT=29517", "HN_TOKEN=bench-binding-netns-0123456789abcdef"});
  };
  auto f0 = std::async(std::launch::async, rank, 0);
  auto f1 = std::async(std::launch::async, rank, 1);
  auto r0 = f0.get(), r1 = f1.get();
  INFO("rank 0:\n" << r0.out << r0.err << "\nrank 1:\n" << r1.out << r1.err);
  REQUIRE(r0.exit_code == 0);
  REQUIRE(r1.exit_code == 0);
  CHECK_THAT(r0.out, Catch::Contains("out of bounds values: 0 OK"));

  // 3. what bench says it bound: the param NIC and address on both ranks.
  auto j = nlohmann::json::parse(hn::test::read_file(dir.path() + "/bench0.json"));
  INFO(j.dump(2));
  CHECK(j["link_setup"]["bind_interface"] == "eth1");
  CHECK(j["link_setup"]["bind_address"] == c.address(0, "param"));
  CHECK_THAT(j["link_setup"]["bind_source"].get<std::string>(),
             Catch::Contains("HCCL_SOCKET_IFNAME"));
  REQUIRE(j["links"].size() == 2);
  for (const auto& l : j["links"]) {
    int me = l["rank"], peer = l["peer"];
    CHECK(l["nic"] == "eth1");
    CHECK(l["device"] == "eth1");
    CHECK(l["local"].get<std::string>().rfind(c.address(me, "param") + ":", 0) == 0);
    CHECK(l["remote"].get<std::string>().rfind(c.address(peer, "param") + ":", 0) == 0);
  }
  CHECK_THAT(r0.out, Catch::Contains("# rank 0 -> rank 1: local " + c.address(0, "param") + ":"));
  CHECK_THAT(r0.out, Catch::Contains("on eth1 (SO_BINDTODEVICE eth1)"));

  // 4. what the NICs counted: a 2-rank allreduce of S bytes sends S and
  // receives S per rank, (warmup + iters) times at least; the management NIC
  // carried only the rendezvous (a few KB).
  const long long moved = (kWarmup + kIters) * kBytes;
  Counters p0 = counters(c, 0, "eth1"), p1 = counters(c, 1, "eth1");
  Counters m0 = counters(c, 0, "eth0"), m1 = counters(c, 1, "eth0");
  INFO("param tx/rx host0 " << p0.tx - param0.tx << "/" << p0.rx - param0.rx << ", host1 "
                            << p1.tx - param1.tx << "/" << p1.rx - param1.rx << "; mgmt host0 "
                            << m0.tx - mgmt0.tx << "/" << m0.rx - mgmt0.rx << ", host1 "
                            << m1.tx - mgmt1.tx << "/" << m1.rx - mgmt1.rx << "; moved " << moved);
  CHECK(p0.tx - param0.tx >= moved);
  CHECK(p0.rx - param0.rx >= moved);
  CHECK(p1.tx - param1.tx >= moved);
  CHECK(p1.rx - param1.rx >= moved);
  const long long chatter = 32 << 10;
  CHECK(m0.tx - mgmt0.tx <= chatter);
  CHECK(m0.rx - mgmt0.rx <= chatter);
  CHECK(m1.tx - mgmt1.tx <= chatter);
  CHECK(m1.rx - mgmt1.rx <= chatter);
  WARN("param tx/rx host0 " << p0.tx - param0.tx << "/" << p0.rx - param0.rx << ", host1 "
                            << p1.tx - param1.tx << "/" << p1.rx - param1.rx << "; mgmt host0 "
                            << m0.tx - mgmt0.tx << "/" << m0.rx - mgmt0.rx << ", host1 "
                            << m1.tx - mgmt1.tx << "/" << m1.rx - mgmt1.rx << "; moved " << moved);
}
