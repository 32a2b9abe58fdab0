// Link setup failures are classified: refused, no route, timeout (packets
// dropped), port in use; each error names the address, plane and elapsed time.
// The dropped-packets and no-route cases are in link_timeout_netns_test.cc.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "stack/l3_comm/socket.h"

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
