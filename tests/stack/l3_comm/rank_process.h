#pragma once
// One rank of a job as its own forked process, built the way bench builds it
// (environment -> bootstrap_from_env -> Communicator), for tests that inject
// faults from outside: the rank writes what it caught to a file and the test
// reads every rank's outcome. Waits are bounded; a rank that overstays is
// SIGKILLed and reported as such.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "stack/l3_comm/communicator.h"

namespace hn::test {

// A token that passes the strength rule (auth.h token_problem).
inline constexpr const char* kStrongToken = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
inline constexpr const char* kOtherStrongToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90";

struct Outcome {
  std::string kind;  // ok, timeout, auth, peer-died, port-in-use, link, input, other
  int dead_rank = -1;
  long long at_ms = 0;  // steady clock, ms since the clock's epoch
  std::string message;
  std::size_t refused = 0;  // connections this rank's listeners refused (Communicator::rejected)
};

long long now_ms();
int free_port();
Outcome read_outcome(const std::string& path);

std::map<std::string, std::string> rank_env(int rank, int world, int port, const std::string& job,
                                            const std::string& token);

// Forks a rank: before() runs first in the child (e.g. lower a limit), then
// env, bootstrap, Communicator(transport, timeout) and body; the outcome goes
// to result_path, every refusal its listeners report to result_path +
// ".refused" (one line each). Returns the pid.
pid_t spawn_rank(const std::map<std::string, std::string>& env, stack::comm::TransportKind t,
                 std::chrono::milliseconds timeout, const std::string& result_path,
                 const std::function<void(stack::comm::Communicator&)>& body,
                 const std::function<void()>& before = {});

// Waits for pid up to limit; kills it if it overstays. Returns false then.
bool wait_for(pid_t pid, std::chrono::milliseconds limit);

}  // namespace hn::test
