#pragma once
// How long a waiting rank polls before it sleeps in the kernel, and whether
// it yields while polling. Polling is what gives MPI-class latency, but a
// rank that polls while its peer waits for the same core stalls both:
//   bound to one CPU (mpirun/srun binding, our --local-ranks): poll hard,
//     `bound_spin`, never yield (a yield hands the core to unrelated work);
//   more local ranks than CPUs (oversubscribed): yield at once and keep
//     yielding, `shared_spin`, then sleep. No pause-spin first: the peer we
//     wait for is most likely waiting for our core, and every pause delays
//     the switch to it (like Open MPI's yield_when_idle);
//   unbound: pause-spin briefly, then poll while yielding for
//     `unbound_spin`, then sleep.
// The spin is bounded: after it the rank sleeps (futex doorbell / poll), so an
// idle job costs no CPU and a deadline or a dead peer is still noticed.
// HN_SPIN_US overrides the time (for measurements).

#include <chrono>

namespace hn::stack::comm {

struct SpinPolicy {
  std::chrono::microseconds spin{0};
  bool yield = true;
  // Busy-wait iterations (cpu pause, ~10-40 ns each) before the first yield
  // or clock read; catches a peer that is a few hundred ns behind on another
  // core. 0 when oversubscribed.
  int pauses = 0;
};

// local_ranks: ranks of the job on this host (1 when unknown). Never throws.
SpinPolicy choose_spin_policy(int local_ranks, std::chrono::microseconds bound_spin,
                              std::chrono::microseconds shared_spin,
                              std::chrono::microseconds unbound_spin);

// Asks the scheduler for a short time slice for this thread (Linux 6.12+,
// EEVDF: sched_setattr's sched_runtime on a SCHED_OTHER or SCHED_BATCH
// thread; policy and nice are kept). Why: a rank that sleeps on its
// doorbell while another process uses its CPU is woken by its peer's
// message, and only a waking task with a shorter slice than the running one
// preempts it at once; with the default slice it waits for the other
// process's slice to end, at every round of every collective (bench/README.md
// "Tuning": 2 ranks beside a busy loop on each CPU). HN_SCHED_SLICE_US
// overrides `slice` (0: leave the thread alone). Returns whether the slice
// is now in force (false on older kernels, real-time policies or a refusal).
// Throws compat::InputError when HN_SCHED_SLICE_US is not a number of
// microseconds from 0 to 100000.
bool request_short_slice(std::chrono::microseconds slice);

}  // namespace hn::stack::comm
