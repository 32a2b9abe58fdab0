#include "tests/stack/l3_comm/rank_harness.h"

#include <cstdio>

#include "stack/l3_comm/bootstrap.h"

namespace hn::test {

stack::sched::LaunchResult run_ranks(int n, const RankSetup& setup,
                                     const std::function<void(stack::comm::Communicator&)>& fn) {
  stack::sched::LaunchOptions lo;
  lo.ranks = n;
  lo.stop_delay = std::chrono::milliseconds(5000);
  return stack::sched::launch_local(lo, [&](int rank) {
    try {
      auto b = stack::comm::bootstrap_from_env(stack::sched::process_env(), {});
      b.options.transport = setup.transport;
      b.options.timeout = setup.timeout;
      b.options.link.connect_timeout = setup.timeout;
      b.options.shm_ring_bytes = setup.shm_ring_bytes;
      stack::comm::Communicator comm(b.options);
      fn(comm);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d failed: %s\n", rank, e.what());
      return 1;
    }
  });
}

}  // namespace hn::test
