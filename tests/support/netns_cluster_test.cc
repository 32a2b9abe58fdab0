// The virtual cluster fixture itself: it builds what it promises (hosts,
// one NIC per plane on per-plane bridges, tbf on the management NICs, real
// connectivity between hosts on every plane) and always tears it down.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "tests/support/netns_cluster.h"
#include "tests/support/skip.h"

using hn::test::NetnsCluster;
using hn::test::NetnsEnter;

namespace {

std::string netns_list() {
  return hn::test::run_process({hn::test::find_program("ip"), "netns", "list"}, 10).out;
}

std::string tc_show(const hn::test::Netns& ns, const std::string& dev) {
  return hn::test::run_process(
             {hn::test::find_program("tc"), "-n", ns.name(), "qdisc", "show", "dev", dev}, 10)
      .out;
}

sockaddr_in endpoint(const std::string& ip, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  return a;
}

// Connects from host `from` to `to_ip` on a listener in host `to`; returns
// the source address the connection used, or "" when it did not connect
// within 2 s. Sockets keep the namespace they were created in.
std::string connect_between(const NetnsCluster& c, int from, int to, const std::string& to_ip) {
  int srv;
  {
    NetnsEnter in(c.host(to).name());
    srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  }
  sockaddr_in a = endpoint(to_ip, 0);
  REQUIRE(bind(srv, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(listen(srv, 1) == 0);
  socklen_t len = sizeof a;
  getsockname(srv, reinterpret_cast<sockaddr*>(&a), &len);
  int cli;
  {
    NetnsEnter in(c.host(from).name());
    cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  }
  connect(cli, reinterpret_cast<sockaddr*>(&a), sizeof a);
  pollfd p{cli, POLLOUT, 0};
  std::string source;
  int err = 0;
  socklen_t elen = sizeof err;
  if (poll(&p, 1, 2000) == 1 && getsockopt(cli, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 &&
      err == 0) {
    sockaddr_in local{};
    socklen_t llen = sizeof local;
    getsockname(cli, reinterpret_cast<sockaddr*>(&local), &llen);
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &local.sin_addr, buf, sizeof buf);
    source = buf;
  }
  close(cli);
  close(srv);
  return source;
}

}  // namespace

TEST_CASE("netns cluster: hosts, planes, tbf and real connectivity, torn down after", "[netns]") {
  if (std::string why = NetnsCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
  std::string prefix;
  {
    hn::test::NetnsClusterOptions o;
    o.hosts = 3;
    o.management_rate = "50mbit";
    NetnsCluster c(o);
    REQUIRE(c.size() == 3);
    prefix = c.switch_ns().name().substr(0, c.switch_ns().name().size() - 3);
    CHECK(netns_list().find(c.host(2).name()) != std::string::npos);
    CHECK(c.profile_yaml().find("  - name: host2\n    addresses: {mgmt: 10.30.0.3, param: "
                                "10.10.0.3, stor: 10.20.0.3}\n") != std::string::npos);
    for (int h = 0; h < c.size(); ++h) {
      CHECK_THAT(tc_show(c.host(h), "eth0"), Catch::Contains("tbf") && Catch::Contains("50Mbit"));
      CHECK_THAT(tc_show(c.host(h), "eth1"), !Catch::Contains("tbf"));
    }
    for (const std::string plane : {"mgmt", "param", "stor"}) {
      CAPTURE(plane);
      CHECK(connect_between(c, 0, 2, c.address(2, plane)) == c.address(0, plane));
    }
    // The management bridge's address is every host's default gateway.
    CHECK(connect_between(c, 1, 0, c.address(0, "mgmt")) == c.address(1, "mgmt"));
  }
  CHECK(netns_list().find(prefix) == std::string::npos);
}

TEST_CASE("netns cluster: namespaces left by a killed run are removed", "[netns]") {
  if (std::string why = NetnsCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  REQUIRE(waitpid(dead, nullptr, 0) == dead);
  std::string stale = "hnc" + std::to_string(dead) + "-0-h0";
  REQUIRE(
      hn::test::run_process({hn::test::find_program("ip"), "netns", "add", stale}, 10).exit_code ==
      0);
  {
    hn::test::NetnsClusterOptions o;
    o.hosts = 1;
    NetnsCluster c(o);
    CHECK(netns_list().find(stale) == std::string::npos);
  }
}
