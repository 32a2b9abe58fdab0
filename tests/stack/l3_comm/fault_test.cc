// Faults, end to end, on real processes: a rank SIGKILLed mid-allreduce, a
// wrong token, two jobs on one rendezvous port. Each rank is a forked
// process that reports what it caught to a file; the test asserts what every
// survivor saw and how fast. Bounds are generous "did not hang" limits.

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

#include "stack/l3_comm/bootstrap.h"
#include "stack/l3_comm/collectives.h"
#include "stack/l3_comm/socket.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::comm;
using Clock = std::chrono::steady_clock;

namespace {

int free_port() {
  LinkParams p;
  Fd fd = listen_on("127.0.0.1", 0, p, {});
  return local_port_of(fd.get());
}

struct Outcome {
  std::string kind;  // ok, timeout, auth, peer-died, port-in-use, link, other
  int dead_rank = -1;
  long long at_ms = 0;  // steady clock, ms since epoch of the clock
  std::string message;
};

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

void write_outcome(const std::string& path, const Outcome& o) {
  std::ofstream f(path);
  f << o.kind << "\n" << o.dead_rank << "\n" << o.at_ms << "\n" << o.message << "\n";
}

Outcome read_outcome(const std::string& path) {
  std::ifstream f(path);
  Outcome o;
  std::string line;
  std::getline(f, o.kind);
  std::getline(f, line);
  o.dead_rank = line.empty() ? -1 : std::stoi(line);
  std::getline(f, line);
  o.at_ms = line.empty() ? 0 : std::stoll(line);
  std::getline(f, o.message);
  return o;
}

// A rank as its own process: env, then bootstrap + Communicator + body; the
// outcome goes to result_path. Returns the pid.
pid_t spawn_rank(const std::map<std::string, std::string>& env, TransportKind t,
                 std::chrono::milliseconds timeout, const std::string& result_path,
                 const std::function<void(Communicator&)>& body) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid > 0) return pid;
  for (const char* v :
       {"HN_RANK", "HN_WORLD_SIZE", "HN_STORE_FD", "HN_RENDEZVOUS", "HN_TOKEN", "HN_JOB_ID"})
    unsetenv(v);
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  Outcome o;
  try {
    auto b = bootstrap_from_env(hn::stack::sched::process_env(), {});
    b.options.transport = t;
    b.options.timeout = timeout;
    b.options.link.connect_timeout = timeout;
    Communicator c(b.options);
    body(c);
    o.kind = "ok";
  } catch (const PeerDiedError& e) {
    o = {"peer-died", e.dead_rank(), 0, e.what()};
  } catch (const AuthError& e) {
    o = {"auth", -1, 0, e.what()};
  } catch (const TimeoutError& e) {
    o = {"timeout", -1, 0, e.what()};
  } catch (const LinkError& e) {
    o = {e.kind() == LinkError::Kind::kPortInUse ? "port-in-use" : "link", -1, 0, e.what()};
  } catch (const std::exception& e) {
    o = {"other", -1, 0, e.what()};
  }
  o.at_ms = now_ms();
  write_outcome(result_path, o);
  _exit(o.kind == "ok" ? 0 : 1);
}

// Waits for pid up to limit; kills it if it overstays. Returns false then.
bool wait_for(pid_t pid, std::chrono::milliseconds limit) {
  auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return false;
}

std::map<std::string, std::string> rank_env(int rank, int world, int port, const std::string& job,
                                            const std::string& token) {
  return {{"HN_RANK", std::to_string(rank)},
          {"HN_WORLD_SIZE", std::to_string(world)},
          {"HN_RENDEZVOUS", "127.0.0.1:" + std::to_string(port)},
          {"HN_JOB_ID", job},
          {"HN_TOKEN", token}};
}

void kill_mid_allreduce(TransportKind t) {
  hn::test::TempDir dir;
  const int n = 4, victim = 2, port = free_port();
  const auto timeout = std::chrono::milliseconds(10000);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r)
    pids.push_back(spawn_rank(rank_env(r, n, port, "kill-test", "secret"), t, timeout,
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

TEST_CASE("a wrong token on one rank fails authentication on both sides") {
  hn::test::TempDir dir;
  const int n = 3, port = free_port();
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r)
    pids.push_back(spawn_rank(rank_env(r, n, port, "token-test", r == 1 ? "wrong" : "secret"),
                              TransportKind::kTcp, std::chrono::milliseconds(5000),
                              dir.path() + "/r" + std::to_string(r),
                              [](Communicator& c) { barrier(c); }));
  for (int r = 0; r < n; ++r) REQUIRE(wait_for(pids[r], std::chrono::seconds(15)));
  Outcome bad = read_outcome(dir.path() + "/r1");
  INFO(bad.message);
  CHECK(bad.kind == "auth");
  CHECK(bad.message.find("token") != std::string::npos);
  for (int r : {0, 2}) {
    Outcome o = read_outcome(dir.path() + "/r" + std::to_string(r));
    INFO("rank " << r << ": " << o.message);
    CHECK(o.kind == "auth");
    CHECK(o.message.find("rank 1") != std::string::npos);
    CHECK(o.message.find("token") != std::string::npos);
  }
}

TEST_CASE("two jobs on one rendezvous port both fail clearly and never mix") {
  hn::test::TempDir dir;
  const int port = free_port();
  const auto timeout = std::chrono::milliseconds(5000);
  auto body = [](Communicator& c) {
    float x = 1, y = 0;
    allreduce(c, &x, &y, 1, Options{});
  };
  std::vector<pid_t> pids;
  pids.push_back(spawn_rank(rank_env(0, 2, port, "job-a", "token-a"), TransportKind::kTcp, timeout,
                            dir.path() + "/a0", body));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pids.push_back(spawn_rank(rank_env(0, 2, port, "job-b", "token-b"), TransportKind::kTcp, timeout,
                            dir.path() + "/b0", body));
  pids.push_back(spawn_rank(rank_env(1, 2, port, "job-b", "token-b"), TransportKind::kTcp, timeout,
                            dir.path() + "/b1", body));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  pids.push_back(spawn_rank(rank_env(1, 2, port, "job-a", "token-a"), TransportKind::kTcp, timeout,
                            dir.path() + "/a1", body));
  for (pid_t p : pids) REQUIRE(wait_for(p, std::chrono::seconds(15)));
  Outcome a0 = read_outcome(dir.path() + "/a0"), a1 = read_outcome(dir.path() + "/a1"),
          b0 = read_outcome(dir.path() + "/b0"), b1 = read_outcome(dir.path() + "/b1");
  INFO("a0: " << a0.message << "\na1: " << a1.message << "\nb0: " << b0.message
              << "\nb1: " << b1.message);
  CHECK(b0.kind == "port-in-use");
  CHECK(b1.kind == "auth");
  CHECK(b1.message.find("job id mismatch") != std::string::npos);
  CHECK(a0.kind == "auth");
  CHECK(a1.kind == "auth");
  CHECK(a0.message.find("job-b") != std::string::npos);
  CHECK(a1.message.find("job-b") != std::string::npos);
}
