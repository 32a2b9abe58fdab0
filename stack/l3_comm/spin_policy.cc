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
  if (local_ranks > sysconf(_SC_NPROCESSORS_ONLN)) {
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
