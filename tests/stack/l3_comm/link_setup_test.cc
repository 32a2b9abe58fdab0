// Link setup failures are classified: refused, no route, timeout (packets
// dropped), port in use; each error names the address, plane and elapsed time.
// The dropped-packets and no-route cases are in link_timeout_netns_test.cc.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "stack/l3_comm/socket.h"
#include "tests/support/ports.h"

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

}  // namespace

TEST_CASE("connect to a closed port is classified as refused, after the retries") {
  hn::test::ClosedPort closed;
  const int port = closed.port();
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

TEST_CASE("a host name that does not resolve is its own class, retried within the budget") {
  ErrorContext ctx;
  ctx.local_rank = 1;
  auto t0 = Clock::now();
  try {
    // .invalid never resolves (RFC 6761).
    connect_with_retry("hn-no-such-host.invalid", 29517, quick(5000ms), ctx);
    FAIL("resolved a .invalid name");
  } catch (const LinkError& e) {
    CHECK(e.kind() == LinkError::Kind::kUnresolved);
    std::string m = e.what();
    CHECK(m.find("host not resolved: cannot resolve host 'hn-no-such-host.invalid'") !=
          std::string::npos);
    CHECK(m.find("4 attempt(s)") != std::string::npos);  // like a refusal: 1 + retry_count
    CHECK(m.find("rank 1") != std::string::npos);
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

namespace {

struct Failure {
  LinkError::Kind kind;
  int attempts;
  long long elapsed_ms;
  std::string message;
};

Failure refused_with(const LinkParams& p) {
  hn::test::ClosedPort closed;
  const int port = closed.port();
  auto t0 = Clock::now();
  try {
    connect_with_retry("127.0.0.1", port, p, {});
  } catch (const LinkError& e) {
    return {e.kind(), e.context().attempts,
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count(),
            e.what()};
  }
  FAIL("connected to a closed port");
  return {};
}

}  // namespace

// The two limits of link_params.h: N+1 attempts with linear sleeps, and the
// budget; whichever is reached first ends the link. Bounds are "not before
// the limit, and did not hang".
TEST_CASE("link setup: the attempt limit ends the link when it comes first") {
  LinkParams p;
  p.connect_timeout = 10000ms;
  p.retry_count = 3;  // sleeps 50 + 100 + 150 ms
  p.retry_sleep = 50ms;
  p.retry_source = "NCCL_SOCKET_RETRY_CNT=3";
  p.budget_source = "HCCL_CONNECT_TIMEOUT=1 + 20 s";
  auto f = refused_with(p);
  INFO(f.message);
  CHECK(f.kind == LinkError::Kind::kRefused);
  CHECK(f.attempts == 4);
  CHECK(f.elapsed_ms >= 300);
  CHECK(f.elapsed_ms < 5000);
  CHECK_THAT(f.message, Catch::Contains("after 4 attempt(s)"));
  CHECK_THAT(f.message, Catch::Contains("the attempt limit of 4 (NCCL_SOCKET_RETRY_CNT=3)"));
  CHECK_THAT(f.message, Catch::Contains("budget of 10.00 s (HCCL_CONNECT_TIMEOUT=1 + 20 s)"));
}

TEST_CASE("link setup: the budget ends the link when it comes first") {
  LinkParams p;
  p.connect_timeout = 1000ms;  // attempts at 0, 200, 600 ms; the 600 ms sleep is cut to 400
  p.retry_count = LinkParams::kNoRetryLimit;
  p.retry_sleep = 200ms;
  p.budget_source = "--timeout";
  auto f = refused_with(p);
  INFO(f.message);
  CHECK(f.kind == LinkError::Kind::kRefused);
  CHECK(f.attempts == 4);
  CHECK(f.elapsed_ms >= 1000);
  CHECK(f.elapsed_ms < 5000);
  CHECK_THAT(f.message, Catch::Contains("gave up at the end of the link-setup budget of 1.00 s"));
  CHECK_THAT(f.message, Catch::Contains("no attempt limit"));
}

TEST_CASE("link setup: an NCCL schedule makes all N+1 attempts within its own budget") {
  // NCCL_SOCKET_RETRY_CNT=4, NCCL_SOCKET_RETRY_SLEEP_MSEC=50: the budget is
  // the total sleep, 10 * 50 ms; the fifth attempt lands at its very end.
  LinkParams p;
  p.retry_count = 4;
  p.retry_sleep = 50ms;
  p.connect_timeout = 500ms;
  auto f = refused_with(p);
  INFO(f.message);
  CHECK(f.attempts == 5);
  CHECK(f.elapsed_ms >= 500);
  CHECK(f.elapsed_ms < 5000);
  CHECK_THAT(f.message, Catch::Contains("after 5 attempt(s)"));
}
