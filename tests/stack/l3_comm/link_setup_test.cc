// Link setup failures are classified: refused, no route, timeout (packets
// dropped), port in use; each error names the address, plane and elapsed time.
// The drop and no-route cases run in a throw-away network namespace (root).

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

int free_port() {
  Fd fd = listen_on("127.0.0.1", 0, LinkParams{}, {});
  return local_port_of(fd.get());  // closed again: nobody listens there now
}

LinkParams quick(std::chrono::milliseconds timeout) {
  LinkParams p;
  p.connect_timeout = timeout;
  p.retry_count = 3;
  p.retry_sleep = 10ms;
  p.plane = "param0";
  return p;
}

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

}  // namespace

TEST_CASE("connect to a closed port is classified as refused, after the retries") {
  const int port = free_port();
  ErrorContext ctx;
  ctx.local_rank = 3;
  ctx.peer_rank = 5;
  auto t0 = Clock::now();
  try {
    connect_with_retry("127.0.0.1", port, quick(5000ms), ctx);
    FAIL("connected to a closed port");
  } catch (const LinkError& e) {
    CHECK(e.kind() == LinkError::Kind::kRefused);
    std::string m = e.what();
    CHECK(m.find("connection refused") != std::string::npos);
    CHECK(m.find("rank 3") != std::string::npos);
    CHECK(m.find("peer rank 5") != std::string::npos);
    CHECK(m.find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
    CHECK(m.find("4 attempt(s)") != std::string::npos);  // 1 + retry_count
    CHECK(e.context().plane == "param0");
  }
  CHECK(Clock::now() - t0 < 3s);
}

TEST_CASE("listening on a taken port is classified as port in use") {
  Fd taken = listen_on("127.0.0.1", 0, LinkParams{}, {});
  try {
    listen_on("127.0.0.1", local_port_of(taken.get()), LinkParams{}, {});
    FAIL("listened twice on one port");
  } catch (const LinkError& e) {
    CHECK(e.kind() == LinkError::Kind::kPortInUse);
  }
}

TEST_CASE("connect to an address that drops packets times out within the bound; no route is no route") {
  if (auto why = hn::test::netns_unavailable_reason(); !why.empty()) hn::test::skip(why);
  // Namespace A has a veth to namespace B, where nobody owns 10.78.0.2; a
  // permanent neighbour entry sends the SYNs there, and they vanish.
  const std::string a = "hnlt-a" + std::to_string(getpid()), b = "hnlt-b" + std::to_string(getpid());
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
  REQUIRE(sh("ip -n " + a + " neigh add 10.78.0.2 lladdr 02:00:00:00:00:99 dev hnlta nud permanent") == 0);

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
          << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count() << "|" << e.what()
          << "\n";
      }
    };
    run("10.78.0.2", 1500ms);  // dropped
    run("10.99.0.1", 1500ms);  // no route in this namespace
    f.close();  // _exit does not flush
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
