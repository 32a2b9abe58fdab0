#include "stack/l3_comm/spin_policy.h"

#include "compat/input_error.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

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

namespace {

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h, 56 bytes
// with the utilization clamps); glibc 2.36 has no wrapper.
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t policy;
  std::uint64_t flags;
  std::int32_t nice;
  std::uint32_t priority;
  std::uint64_t runtime, deadline, period;
  std::uint32_t util_min, util_max;
};

}  // namespace

bool request_short_slice(std::chrono::microseconds slice) {
  if (const char* e = std::getenv("HN_SCHED_SLICE_US")) {
    const std::string v = e;
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(v) > 100000)
      throw compat::InputError("environment", 0, 0, "HN_SCHED_SLICE_US",
                               "expected microseconds from 0 (the scheduler's default) to "
                               "100000, got '" +
                                   v + "'");
    slice = std::chrono::microseconds(std::stoul(v));
  }
  if (slice.count() <= 0) return false;
  SchedAttr a{};
  if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) != 0) return false;
  if (a.policy != SCHED_OTHER && a.policy != SCHED_BATCH) return false;
  a.size = sizeof a;
  a.flags = 0;
  a.runtime = static_cast<std::uint64_t>(slice.count()) * 1000;
  if (syscall(SYS_sched_setattr, 0, &a, 0) != 0) return false;
  SchedAttr now{};
  return syscall(SYS_sched_getattr, 0, &now, sizeof now, 0) == 0 && now.runtime == a.runtime;
}

}  // namespace hn::stack::comm
