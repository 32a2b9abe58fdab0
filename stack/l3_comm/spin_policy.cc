#include "stack/l3_comm/spin_policy.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

namespace hn::stack::comm {

SpinPolicy choose_spin_policy(int local_ranks, std::chrono::microseconds bound_spin,
                              std::chrono::microseconds shared_spin,
                              std::chrono::microseconds unbound_spin) {
  SpinPolicy p;
  cpu_set_t set;
  CPU_ZERO(&set);
  const bool bound = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
  // Oversubscribed: more ranks than the machine has CPUs, or (unbound) than
  // this process may run on, as in a container or a Slurm step allowed 2 of
  // 64 CPUs. A rank bound to one CPU says nothing about where the others run,
  // so only the machine's count applies to it.
  const long allowed = CPU_COUNT(&set);
  if (local_ranks > sysconf(_SC_NPROCESSORS_ONLN) ||
      (!bound && allowed > 0 && local_ranks > allowed)) {
    p = {shared_spin, true, 0};
  } else if (bound) {
    p = {bound_spin, false, 256};
  } else {
    p = {unbound_spin, true, 256};
  }
  if (const char* e = std::getenv("HN_SPIN_US")) p.spin = std::chrono::microseconds(std::atol(e));
  return p;
}

}  // namespace hn::stack::comm
