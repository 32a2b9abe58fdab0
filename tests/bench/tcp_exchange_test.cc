// bench/tcp_exchange: the two roles finish at sizes beyond what the socket
// buffers hold (sending a whole half before receiving deadlocked there: the
// probe hung at 4 MiB over a veth and at 32 MiB on loopback), the result
// check can fail (--fault), a stall stops at its deadline with exit 3, and
// bad usage is exit 2.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <future>

#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using hn::test::ProcessResult;
using hn::test::run_process;

namespace {
const std::string kProbe = HN_TCP_EXCHANGE;

struct Pair {
  ProcessResult r0, r1;
  double seconds = 0;
};

// Both roles on loopback, role 1 started first (it retries its connect).
Pair run_pair(const std::string& bytes, const std::string& iters,
              const std::vector<std::string>& flags) {
  const std::string port = std::to_string(hn::test::free_loopback_port());
  auto args = [&](const char* role) {
    std::vector<std::string> a{kProbe, role, "127.0.0.1", port, bytes, iters};
    a.insert(a.end(), flags.begin(), flags.end());
    return a;
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto r1 = std::async(std::launch::async, [&] { return run_process(args("1"), 120); });
  Pair p;
  p.r0 = run_process(args("0"), 120);
  p.r1 = r1.get();
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}
}  // namespace

TEST_CASE("tcp_exchange completes and checks its result beyond the socket buffers") {
  for (const char* bytes : {"65536", "8388608", "33554432"}) {
    for (const bool handshake : {false, true}) {
      INFO(bytes << " B, handshake " << handshake);
      std::vector<std::string> flags;
      if (handshake) flags.push_back("--handshake");
      auto p = run_pair(bytes, "2", flags);
      INFO(p.r0.out << p.r0.err << p.r1.err);
      REQUIRE(p.r0.exit_code == 0);
      CHECK(p.r1.exit_code == 0);
      auto j = nlohmann::json::parse(p.r0.out);
      CHECK(j["bytes"] == std::stoull(bytes));
      CHECK(j["wrong"] == 0);
      CHECK(j["busbw_gbps"].get<double>() > 0);
    }
  }
}

TEST_CASE("tcp_exchange counts an unreduced element as wrong") {
  for (const char* bytes : {"65536", "8388608"}) {
    INFO(bytes);
    auto p = run_pair(bytes, "2", {"--fault"});
    INFO(p.r0.out << p.r0.err);
    CHECK(p.r0.exit_code == 1);
    CHECK(p.r1.exit_code == 1);
    // Each rank leaves one element of its half unreduced; both reach role 0.
    CHECK(nlohmann::json::parse(p.r0.out)["wrong"] == 2);
  }
}

TEST_CASE("tcp_exchange stops blocking sends larger than the socket buffers with exit 3") {
  // Both ranks block in send, neither receives: the deadlock the old
  // probe hung in, now cut by SO_SNDTIMEO and the per-exchange deadline.
  // Nobody reads, so the receive buffer keeps its initial size
  // (tcp_rmem's second field) and the send buffer grows at most to
  // tcp_wmem's third: a 16 MiB half exceeds both unless a host raised them.
  const auto field = [](const char* path, int k) {
    std::ifstream f(path);
    long long v[3] = {0, 0, 0};
    f >> v[0] >> v[1] >> v[2];
    return v[k];
  };
  const long long room =
      field("/proc/sys/net/ipv4/tcp_rmem", 1) + field("/proc/sys/net/ipv4/tcp_wmem", 2);
  if (room >= (12ll << 20))
    hn::test::skip("tcp_rmem[1] + tcp_wmem[2] = " + std::to_string(room) +
                   " B leave room for a 16 MiB half to be sent unread: no stall to catch");
  auto p = run_pair("33554432", "2", {"--blocking", "--deadline", "2"});
  INFO(p.r0.err << p.r1.err);
  CHECK((p.r0.exit_code == 3 || p.r1.exit_code == 3));
  CHECK((p.r0.err + p.r1.err).find("timeout after 2 s") != std::string::npos);
  CHECK(p.r0.exit_code != 0);
  CHECK(p.r1.exit_code != 0);
  CHECK(p.seconds < 30);
}

TEST_CASE("tcp_exchange stops at its deadline when the peer never comes with exit 3") {
  SECTION("no peer connects") {
    const std::string port = std::to_string(hn::test::free_loopback_port());
    auto r = run_process({kProbe, "0", "127.0.0.1", port, "65536", "2", "--deadline", "1"}, 30);
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("no peer connected") != std::string::npos);
  }
  SECTION("nobody listens") {
    hn::test::ClosedPort closed;
    auto r = run_process(
        {kProbe, "1", "127.0.0.1", std::to_string(closed.port()), "65536", "2", "--deadline", "1"},
        30);
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("could not connect") != std::string::npos);
  }
}

TEST_CASE("tcp_exchange rejects bad usage with exit 2") {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"0", "127.0.0.1", "1", "8", "1", "--deadline", "0"},
        {"0", "127.0.0.1", "1", "8", "1", "--deadline", "soon"},
        {"0", "127.0.0.1", "1", "8", "1", "--offset", "64"},
        {"0", "127.0.0.1", "1", "8", "1", "--bogus"},
        {"2", "127.0.0.1", "1", "8", "1"},
        {"0", "127.0.0.1"}}) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    INFO(shown);
    args.insert(args.begin(), kProbe);
    auto r = run_process(args, 30);
    CHECK(r.exit_code == 2);
    CHECK(!r.err.empty());
  }
}
