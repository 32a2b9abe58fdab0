// A connect to an address that drops packets is classified as a timeout
// within the configured bound; an address without a route as "no route".
// Runs in a throw-away pair of network namespaces (root; skipped otherwise),
// reaching nothing outside this machine.

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "stack/l3_comm/socket.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::comm;
using namespace std::chrono_literals;

namespace {

LinkParams quick(std::chrono::milliseconds timeout) {
  LinkParams p;
  p.connect_timeout = timeout;
  p.retry_count = 3;
  p.retry_sleep = 10ms;
  p.plane = "param0";
  return p;
}

int sh(const std::string& cmd) {
  return std::system((cmd + " >/dev/null 2>&1").c_str());
}

}  // namespace

TEST_CASE(
    "connect to an address that drops packets times out within the bound, and no route is no "
    "route") {
  if (auto why = hn::test::netns_unavailable_reason(); !why.empty()) hn::test::skip(why);
  // Namespace A has a veth to namespace B, where nobody owns 10.78.0.2; a
  // permanent neighbour entry sends the SYNs there, and they vanish.
  const std::string a = "hnlt-a" + std::to_string(getpid()),
                    b = "hnlt-b" + std::to_string(getpid());
  struct Cleanup {
    std::string a, b;
    ~Cleanup() {
      sh("ip netns del " + a);
      sh("ip netns del " + b);
    }
  } cleanup{a, b};
  REQUIRE(sh("ip netns add " + a) == 0);
  REQUIRE(sh("ip netns add " + b) == 0);
  REQUIRE(sh("ip link add hnlta netns " + a + " type veth peer name hnltb netns " + b) == 0);
  REQUIRE(sh("ip -n " + a + " addr add 10.78.0.1/24 dev hnlta") == 0);
  REQUIRE(sh("ip -n " + a + " link set hnlta up") == 0);
  REQUIRE(sh("ip -n " + b + " link set hnltb up") == 0);
  REQUIRE(sh("ip -n " + a +
             " neigh add 10.78.0.2 lladdr 02:00:00:00:00:99 dev hnlta nud permanent") == 0);

  hn::test::TempDir dir;
  const std::string out = dir.path() + "/result";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::ofstream f(out);
    int nsfd = open(("/run/netns/" + a).c_str(), O_RDONLY);
    if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) {
      f << "setns failed\n";
      f.close();
      _exit(1);
    }
    auto run = [&](const std::string& host, std::chrono::milliseconds bound) {
      auto t0 = Clock::now();
      try {
        connect_with_retry(host, 9, quick(bound), {});
        f << "connected\n";
      } catch (const LinkError& e) {
        f << LinkError::kind_name(e.kind()) << "|"
          << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count() << "|"
          << e.what() << "\n";
      }
    };
    run("10.78.0.2", 1500ms);  // dropped
    run("10.99.0.1", 1500ms);  // no route in this namespace
    f.close();                 // _exit does not flush
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  std::ifstream f(out);
  std::string dropped, noroute;
  std::getline(f, dropped);
  std::getline(f, noroute);
  INFO(dropped << "\n" << noroute);
  REQUIRE(dropped.rfind("timeout|", 0) == 0);
  long ms = std::stol(dropped.substr(8));
  CHECK(ms >= 1400);
  CHECK(ms < 5000);
  CHECK(dropped.find("10.78.0.2:9") != std::string::npos);
  CHECK(noroute.rfind("no route|", 0) == 0);
}
