// Faults, end to end, on real processes: a rank SIGKILLed mid-allreduce, a
// wrong token, two jobs on one rendezvous port. Each rank is a forked
// process (rank_process.h) that reports what it caught to a file; the test
// asserts what every survivor saw and how fast. Bounds are generous "did not
// hang" limits.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "stack/l3_comm/collectives.h"
#include "tests/stack/l3_comm/rank_process.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::comm;
using namespace hn::test;
using Clock = std::chrono::steady_clock;

namespace {

void kill_mid_allreduce(TransportKind t) {
  hn::test::TempDir dir;
  const int n = 4, victim = 2, port = free_port();
  const auto timeout = std::chrono::milliseconds(10000);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r)
    pids.push_back(spawn_rank(rank_env(r, n, port, "kill-test", kStrongToken), t, timeout,
                              dir.path() + "/r" + std::to_string(r), [&](Communicator& c) {
                                std::vector<float> a(16 << 20, 1.0f), b(a.size());
                                Options o;
                                o.algorithm = Algorithm::kRing;
                                for (int i = 0;; ++i) {
                                  allreduce(c, a.data(), b.data(), a.size(), o);
                                  if (i == 0)
                                    std::ofstream(dir.path() + "/started" +
                                                  std::to_string(c.rank()));
                                }
                              }));
  // Kill once every rank is inside the allreduce loop.
  auto until = Clock::now() + std::chrono::seconds(30);
  for (int r = 0; r < n && Clock::now() < until; ++r)
    while (!std::ifstream(dir.path() + "/started" + std::to_string(r)) && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const long long killed_at = now_ms();
  REQUIRE(kill(pids[victim], SIGKILL) == 0);
  for (int r = 0; r < n; ++r) {
    bool exited = wait_for(pids[r], timeout + std::chrono::seconds(5));
    if (r == victim) continue;
    INFO("rank " << r);
    REQUIRE(exited);
    Outcome o = read_outcome(dir.path() + "/r" + std::to_string(r));
    INFO(o.message);
    CHECK(o.kind == "peer-died");
    CHECK(o.dead_rank == victim);
    CHECK(o.message.find("rank 2") != std::string::npos);
    CHECK(o.at_ms - killed_at < timeout.count());
  }
}

}  // namespace

TEST_CASE("SIGKILL of one rank mid-allreduce: every survivor throws naming it (shm)") {
  kill_mid_allreduce(TransportKind::kShm);
}

TEST_CASE("SIGKILL of one rank mid-allreduce: every survivor throws naming it (tcp)") {
  kill_mid_allreduce(TransportKind::kTcp);
}

TEST_CASE("a rank with a wrong token never joins: it is refused and the others name the refusal") {
  // Before the v2 handshake a wrong token failed every rank at once, blaming
  // rank 1; a stranger could do the same. Now a wrong token is a stranger:
  // refused, never joined, and the job's own ranks end at their timeout
  // with the refusal in the message.
  hn::test::TempDir dir;
  const int n = 3, port = free_port();
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r)
    pids.push_back(
        spawn_rank(rank_env(r, n, port, "token-test", r == 1 ? kOtherStrongToken : kStrongToken),
                   TransportKind::kTcp, std::chrono::milliseconds(3000),
                   dir.path() + "/r" + std::to_string(r), [](Communicator& c) { barrier(c); }));
  for (int r = 0; r < n; ++r) REQUIRE(wait_for(pids[r], std::chrono::seconds(20)));
  Outcome bad = read_outcome(dir.path() + "/r1");
  INFO(bad.message);
  CHECK(bad.kind == "auth");
  CHECK(bad.message.find("refused our job token") != std::string::npos);
  // Rank 0 hosts the rendezvous: it names the missing rank and the refusal.
  Outcome o0 = read_outcome(dir.path() + "/r0");
  INFO("rank 0: " << o0.message);
  CHECK(o0.kind == "timeout");
  CHECK(o0.message.find("host/1") != std::string::npos);
  CHECK(o0.message.find("wrong job token") != std::string::npos);
  // Rank 2 fails too: at its own timeout, or when rank 0 (whose ran out
  // first) leaves.
  Outcome o2 = read_outcome(dir.path() + "/r2");
  INFO("rank 2: " << o2.message);
  CHECK((o2.kind == "timeout" || (o2.kind == "peer-died" && o2.dead_rank == 0)));
}

TEST_CASE("a rank that gives up first does not hide the absent rank from the others") {
  // Rank 2 times out first waiting for rank 1 (refused: wrong token) and
  // leaves. Rank 0 must still report what it saw first-hand, the missing
  // rank and the refusal, with rank 2's departure only as context; once this
  // was "rank 2 died", which sent people to the wrong node.
  hn::test::TempDir dir;
  const int n = 3, port = free_port();
  const std::chrono::milliseconds timeouts[] = {std::chrono::milliseconds(4000),
                                                std::chrono::milliseconds(3000),
                                                std::chrono::milliseconds(1000)};
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r)
    pids.push_back(
        spawn_rank(rank_env(r, n, port, "token-test", r == 1 ? kOtherStrongToken : kStrongToken),
                   TransportKind::kTcp, timeouts[r], dir.path() + "/r" + std::to_string(r),
                   [](Communicator& c) { barrier(c); }));
  for (int r = 0; r < n; ++r) REQUIRE(wait_for(pids[r], std::chrono::seconds(20)));
  Outcome o2 = read_outcome(dir.path() + "/r2");
  INFO("rank 2: " << o2.message);
  CHECK(o2.kind == "timeout");
  Outcome o0 = read_outcome(dir.path() + "/r0");
  INFO("rank 0: " << o0.message);
  CHECK(o0.kind == "timeout");
  CHECK(o0.message.find("host/1") != std::string::npos);
  CHECK(o0.message.find("wrong job token") != std::string::npos);
  CHECK(o0.message.find("rank 2 died") != std::string::npos);
}

TEST_CASE("two jobs on one rendezvous port never mix: the second is refused and the first runs") {
  hn::test::TempDir dir;
  const int port = free_port();
  const auto timeout = std::chrono::milliseconds(5000);
  auto body = [](Communicator& c) {
    float x = 1, y = 0;
    allreduce(c, &x, &y, 1, Options{});
    if (y != 2) throw std::runtime_error("allreduce gave " + std::to_string(y));
  };
  std::vector<pid_t> pids;
  pids.push_back(spawn_rank(rank_env(0, 2, port, "job-a", kStrongToken), TransportKind::kTcp,
                            timeout, dir.path() + "/a0", body));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pids.push_back(spawn_rank(rank_env(0, 2, port, "job-b", kOtherStrongToken), TransportKind::kTcp,
                            timeout, dir.path() + "/b0", body));
  pids.push_back(spawn_rank(rank_env(1, 2, port, "job-b", kOtherStrongToken), TransportKind::kTcp,
                            timeout, dir.path() + "/b1", body));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  pids.push_back(spawn_rank(rank_env(1, 2, port, "job-a", kStrongToken), TransportKind::kTcp,
                            timeout, dir.path() + "/a1", body));
  for (pid_t p : pids) REQUIRE(wait_for(p, std::chrono::seconds(20)));
  Outcome a0 = read_outcome(dir.path() + "/a0"), a1 = read_outcome(dir.path() + "/a1"),
          b0 = read_outcome(dir.path() + "/b0"), b1 = read_outcome(dir.path() + "/b1");
  INFO("a0: " << a0.message << "\na1: " << a1.message << "\nb0: " << b0.message
              << "\nb1: " << b1.message);
  CHECK(b0.kind == "port-in-use");
  CHECK(b1.kind == "auth");
  CHECK(b1.message.find("refused our job token") != std::string::npos);
  CHECK(a0.kind == "ok");
  CHECK(a1.kind == "ok");
  CHECK(a0.refused >= 1);
}

TEST_CASE("two jobs sharing one token on one port: job id mismatch, named on the refused side") {
  hn::test::TempDir dir;
  const int port = free_port();
  const auto timeout = std::chrono::milliseconds(5000);
  auto body = [](Communicator& c) { barrier(c); };
  pid_t a0 = spawn_rank(rank_env(0, 2, port, "job-a", kStrongToken), TransportKind::kTcp, timeout,
                        dir.path() + "/a0", body);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pid_t b1 = spawn_rank(rank_env(1, 2, port, "job-b", kStrongToken), TransportKind::kTcp, timeout,
                        dir.path() + "/b1", body);
  REQUIRE(wait_for(b1, std::chrono::seconds(20)));
  pid_t a1 = spawn_rank(rank_env(1, 2, port, "job-a", kStrongToken), TransportKind::kTcp, timeout,
                        dir.path() + "/a1", body);
  REQUIRE(wait_for(a0, std::chrono::seconds(20)));
  REQUIRE(wait_for(a1, std::chrono::seconds(20)));
  Outcome o0 = read_outcome(dir.path() + "/a0"), o1 = read_outcome(dir.path() + "/a1"),
          ob = read_outcome(dir.path() + "/b1");
  INFO("a0: " << o0.message << "\na1: " << o1.message << "\nb1: " << ob.message);
  CHECK(ob.kind == "auth");
  CHECK(ob.message.find("job id mismatch") != std::string::npos);
  CHECK(ob.message.find("job-a") != std::string::npos);
  CHECK(o0.kind == "ok");
  CHECK(o1.kind == "ok");
}
