// A rank whose DNS server never answers: the lookup of the rendezvous host is
// bounded by the link-setup budget (--timeout) and classified, instead of
// blocking in getaddrinfo for the resolver's own 5 s x attempts. The dead
// server is real: `ip netns exec` bind-mounts /etc/netns/NS/resolv.conf, which
// names 10.99.0.1, where every packet is silently dropped.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/process.h"
#include "tests/support/skip.h"

namespace {

struct DeadDnsNamespace {
  std::string name = "hnrs" + std::to_string(getpid());
  std::string etc = "/etc/netns/" + name;

  DeadDnsNamespace() {
    run({"/usr/sbin/ip", "netns", "add", name});
    std::filesystem::create_directories(etc);
    std::ofstream(etc + "/resolv.conf") << "nameserver 10.99.0.1\noptions timeout:5 attempts:2\n";
    run({"/usr/sbin/ip", "-n", name, "link", "set", "lo", "up"});
    // A veth pair inside the namespace; 10.99.0.1 is a static neighbour with
    // a MAC nobody has, so every query leaves and is dropped by the peer end
    // (no ICMP error, no ARP failure): the resolver just waits.
    run({"/usr/sbin/ip", "-n", name, "link", "add", "v0", "type", "veth", "peer", "name", "v1"});
    run({"/usr/sbin/ip", "-n", name, "addr", "add", "10.99.0.2/24", "dev", "v0"});
    run({"/usr/sbin/ip", "-n", name, "link", "set", "v0", "up"});
    run({"/usr/sbin/ip", "-n", name, "link", "set", "v1", "up"});
    run({"/usr/sbin/ip", "-n", name, "neigh", "add", "10.99.0.1", "lladdr", "02:00:00:00:00:01",
         "dev", "v0"});
  }
  ~DeadDnsNamespace() {
    hn::test::run_process({"/usr/sbin/ip", "netns", "del", name}, 10);
    std::error_code ec;
    std::filesystem::remove_all(etc, ec);
  }
  static void run(const std::vector<std::string>& argv) {
    auto r = hn::test::run_process(argv, 10);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
};

}  // namespace

TEST_CASE("bench: a DNS server that never answers ends at --timeout, classified", "[netns]") {
  if (auto why = hn::test::netns_unavailable_reason(); !why.empty()) hn::test::skip(why);
  DeadDnsNamespace ns;
  auto t0 = std::chrono::steady_clock::now();
  auto r = hn::test::run_process(
      {"/usr/sbin/ip", "netns", "exec", ns.name, HN_BINARY, "bench", "-e", "64", "--timeout", "1",
       "--rendezvous", "master.hn-test.example:29517"},
      60, {"RANK=1", "WORLD_SIZE=2", "HN_TOKEN=4d9f1c2ab37e80561f2c9d4e7a3b8f60"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != -1);
  CHECK_THAT(r.err,
             Catch::Contains("host not resolved") && Catch::Contains("master.hn-test.example"));
  // The resolver alone would take 10 s (5 s x 2 attempts); a bound, not a timing figure.
  CHECK(s < 5.0);
}
