#pragma once
// How long a waiting rank polls before it sleeps in the kernel, and whether
// it yields while polling. Polling is what gives MPI-class latency, but a
// rank that polls while its peer waits for the same core stalls both:
//   bound to one CPU (mpirun/srun binding, our --local-ranks): poll hard,
//     `bound_spin`, never yield (a yield hands the core to unrelated work);
//   more local ranks than CPUs: poll while yielding (so a rank sharing the
//     core runs), `shared_spin`, then sleep;
//   unbound: poll while yielding for `unbound_spin`, then sleep.
// HN_SPIN_US overrides the time (for measurements).

#include <chrono>

namespace hn::stack::comm {

struct SpinPolicy {
  std::chrono::microseconds spin{0};
  bool yield = true;
};

SpinPolicy choose_spin_policy(int local_ranks, std::chrono::microseconds bound_spin,
                              std::chrono::microseconds shared_spin, std::chrono::microseconds unbound_spin);

}  // namespace hn::stack::comm
