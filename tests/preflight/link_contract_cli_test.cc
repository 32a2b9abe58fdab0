// "Verified on the stack" (issue 6): a configuration is translated by the real
// `hnprecheck translate`, and the env file it wrote starts the stack the way
// an operator does (`set -a; . out.env; set +a; exec hnprecheck bench ...`).
// A rank whose first link (to the rendezvous) cannot be made must fail after
// the translated budget, with the translated number of attempts:
//   * NCCL target: NCCL_SOCKET_RETRY_CNT=4 x 250 ms -> 5 attempts, 2.5 s,
//     against a port nobody listens on (refused, retried);
//   * HCCL target: the same NCCL settings become HCCL_CONNECT_TIMEOUT=120
//     (clamped to HCCL's minimum) -> 140 s, against a peer that never
//     answers a SYN (a listener whose accept queue is full drops them), so
//     the failure is a timeout.
// Tolerance (docs/commands/translate.md "Link-setup contract"): the failure comes no earlier
// than the budget minus 0.2 s (clock rounding) and no later than the budget
// plus 1 s (the 100 ms last-attempt window plus scheduling on a loaded
// machine). The elapsed time is the stack's own (the error's "after N ms"),
// and the process's wall time is checked with a generous "did not hang".

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <string>

#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using hn::test::TempDir;

namespace {

struct Socket {
  int fd = -1;
  explicit Socket(int f) : fd(f) {}
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

int port_of(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

// A listener on 127.0.0.1 with an accept queue of one, already holding one
// connection: the kernel drops every further SYN (ListenOverflows), so a
// connect to it gets no answer at all, like a black-holed peer.
struct SilentPeer {
  Socket listener{socket(AF_INET, SOCK_STREAM, 0)};
  Socket filler{socket(AF_INET, SOCK_STREAM, 0)};
  int port = 0;
  SilentPeer() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listener.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(listener.fd, 0) == 0);
    port = port_of(listener.fd);
    a.sin_port = htons(static_cast<uint16_t>(port));
    REQUIRE(connect(filler.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  }
};

// Runs `hnprecheck translate` and returns the env file it wrote.
std::string translate(const TempDir& dir, const std::string& from, const std::string& to,
                      const std::string& input) {
  std::string in = dir.write("in.env", input);
  std::string out = dir.path() + "/out.env";
  auto r = run_process({HN_BINARY, "translate", "--from", from, "--to", to, in, "--out", out,
                        "--local-port-range", "32768 60999"},
                       60);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

struct BenchFailure {
  int exit_code = -1;
  std::string err;
  double wall_s = 0;
  long long elapsed_ms = -1;  // the stack's own measurement, from the error
};

// Rank 1 of 2 whose rendezvous is 127.0.0.1:port, started with the
// translated env file sourced by a POSIX shell.
BenchFailure bench_rank1(const std::string& env_file, int port, double limit_s) {
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_process(
      {"/bin/sh", "-c", "set -a; . \"$0\"; set +a; exec \"$@\"", env_file, HN_BINARY, "bench", "-b",
       "8", "-e", "64", "--transport", "tcp"},
      limit_s,
      {"RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + std::to_string(port),
       "HN_TOKEN=link-contract-test-0123456789abcdef"});
  BenchFailure f;
  f.exit_code = r.exit_code;
  f.err = r.err;
  f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::smatch m;
  if (std::regex_search(f.err, m, std::regex(R"(, after (\d+) ms\))")))
    f.elapsed_ms = std::stoll(m[1]);
  return f;
}

}  // namespace

TEST_CASE("contract: NCCL-target retries - a refused peer fails after 5 attempts and 2.5 s") {
  TempDir dir;
  std::string env = translate(dir, "torch", "nccl",
                              "NCCL_SOCKET_RETRY_CNT=4\nNCCL_SOCKET_RETRY_SLEEP_MSEC=250\n");
  std::string written = hn::test::read_file(env);
  INFO(written);
  REQUIRE_THAT(written, Catch::Contains("NCCL_SOCKET_RETRY_CNT=4"));
  REQUIRE_THAT(written, Catch::Contains("NCCL_SOCKET_RETRY_SLEEP_MSEC=250"));

  hn::test::ClosedPort closed;
  auto f = bench_rank1(env, closed.port(), 60);
  INFO(f.err);
  CHECK(f.exit_code == 1);
  CHECK_THAT(f.err, Catch::Contains("connection refused"));
  CHECK_THAT(f.err, Catch::Contains("after 5 attempt(s)"));
  CHECK_THAT(f.err, Catch::Contains("the attempt limit of 5 (NCCL_SOCKET_RETRY_CNT=4)"));
  CHECK_THAT(f.err, Catch::Contains("budget of 2.50 s (NCCL_SOCKET_RETRY_CNT=4 x "
                                    "NCCL_SOCKET_RETRY_SLEEP_MSEC=250 linear back-off)"));
  // 250 + 500 + 750 + 1000 ms of sleep between the five attempts.
  REQUIRE(f.elapsed_ms >= 0);
  CHECK(f.elapsed_ms >= 2500 - 200);
  CHECK(f.elapsed_ms <= 2500 + 2000);  // scheduling delay on a loaded 2-core CI box
  CHECK(f.wall_s >= 2.3);
  CHECK(f.wall_s < 20);  // did not hang
  WARN("NCCL target: budget 2.50 s, failed after " << f.elapsed_ms << " ms (process " << f.wall_s
                                                   << " s)");
}

TEST_CASE(
    "contract: HCCL-target timeout - a silent peer times out at HCCL_CONNECT_TIMEOUT + 20 s") {
  TempDir dir;
  std::string env =
      translate(dir, "nccl", "hccl", "NCCL_SOCKET_RETRY_CNT=4\nNCCL_SOCKET_RETRY_SLEEP_MSEC=250\n");
  std::string written = hn::test::read_file(env);
  INFO(written);
  // 2.5 s of NCCL retries is below HCCL's range: clamped to its minimum.
  REQUIRE(std::regex_search(written, std::regex("(^|\n)HCCL_CONNECT_TIMEOUT='?120'?\n")));

  SilentPeer peer;
  auto f = bench_rank1(env, peer.port, 200);
  INFO(f.err);
  CHECK(f.exit_code == 1);
  CHECK_THAT(f.err,
             Catch::Contains("timeout: no answer from 127.0.0.1:" + std::to_string(peer.port)));
  CHECK_THAT(f.err, Catch::Contains(
                        "the link-setup budget of 140.00 s (HCCL_CONNECT_TIMEOUT=120 + 20 s)"));
  CHECK_THAT(f.err, Catch::Contains("no attempt limit"));
  REQUIRE(f.elapsed_ms >= 0);
  CHECK(f.elapsed_ms >= 140000 - 200);
  CHECK(f.elapsed_ms <= 140000 + 2000);
  CHECK(f.wall_s >= 139.8);
  CHECK(f.wall_s < 180);  // did not hang
  WARN("HCCL target: budget 140.00 s, failed after " << f.elapsed_ms << " ms (process " << f.wall_s
                                                     << " s)");
}
