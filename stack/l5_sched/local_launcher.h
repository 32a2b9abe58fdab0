#pragma once
// The local launcher behind `--local-ranks N`: forks N ranks on this machine,
// waits for them and forwards their exit status. Each child runs child_main
// with the environment our identity detection reads:
//   HN_RANK, HN_WORLD_SIZE, HN_LOCAL_RANK, HN_LOCAL_WORLD_SIZE, HN_NODE_RANK=0,
//   HN_JOB_ID (a fresh random id unless the caller's environment has one),
//   HN_TOKEN (a fresh random token unless HN_TOKEN is set),
//   HN_RENDEZVOUS=127.0.0.1:PORT and HN_STORE_FD: a listening socket the
//   launcher bound before forking, so rank 0 can never lose its port to a race.
// The children form one process group. When a rank fails (non-zero exit or a
// signal) the others get stop_delay to stop on their own (they learn of the
// death through the communicator and name the dead rank), then SIGTERM, then
// SIGKILL after kill_grace. SIGINT/SIGTERM sent to the launcher are forwarded
// to the group. Children die with the launcher (PR_SET_PDEATHSIG).
// HN_NO_BIND=1 disables the binding. Call it before this process starts any thread. Throws
// std::system_error when it cannot fork or bind.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace hn::stack::sched {

struct LaunchOptions {
  int ranks = 1;
  std::chrono::milliseconds stop_delay{2000};
  std::chrono::milliseconds kill_grace{3000};
  // Pin rank r to the (r mod k)-th of the k CPUs this process may use. With
  // at least as many CPUs as ranks (what mpirun's default --bind-to core
  // does for small jobs) spinning ranks never share a core; with more ranks
  // than CPUs (mpirun's --bind-to core:overload-allowed) each CPU always
  // alternates between the same ranks.
  bool bind_to_core = true;
  // A rank whose end ends the job (certify's rank 0 carries the verdict):
  // once it has exited, the others get leader_grace to exit on their own,
  // then SIGKILL (a stopped or hung rank cannot hold the launcher). -1: none.
  int leader = -1;
  std::chrono::milliseconds leader_grace{500};
};

struct LaunchResult {
  int exit_code = 0;           // 0, the first failed rank's exit code, or 128+signal
  int first_failed_rank = -1;  // -1 when every rank exited 0
  std::string first_failure;   // "exit code 1", "killed by signal 9 (Killed)"
  // Per rank: its exit code, or 128+signal when a signal ended it. A caller
  // whose verdict is one rank's (certify's rank 0) reads it here rather than
  // forwarding another rank's raw status.
  std::vector<int> exit_codes;
  std::vector<bool> signalled;
};

LaunchResult launch_local(const LaunchOptions& options,
                          const std::function<int(int rank)>& child_main);

// 32 random bytes as hex, from getrandom(2).
std::string random_hex(std::size_t bytes = 32);

}  // namespace hn::stack::sched
