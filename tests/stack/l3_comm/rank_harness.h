#pragma once
// Runs a function on N real ranks: forks them with the L5 local launcher,
// builds each rank's Communicator from the launcher's environment (so the
// store socket, token and job id path is the product's own), and returns the
// launcher's result. A rank that throws prints the error and exits 1.

#include <functional>

#include "stack/l3_comm/communicator.h"
#include "stack/l5_sched/local_launcher.h"

namespace hn::test {

struct RankSetup {
  stack::comm::TransportKind transport = stack::comm::TransportKind::kAuto;
  std::chrono::milliseconds timeout{20000};
  std::size_t shm_ring_bytes = 0;
};

stack::sched::LaunchResult run_ranks(int n, const RankSetup& setup,
                                     const std::function<void(stack::comm::Communicator&)>& fn);

}  // namespace hn::test
