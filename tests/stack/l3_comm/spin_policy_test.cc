// choose_spin_policy: which wait a rank uses for where it runs; and
// request_short_slice: the slice a waiting rank asks the scheduler for.

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include <cstdlib>

#include "compat/input_error.h"
#include "stack/l3_comm/spin_policy.h"
#include "tests/support/skip.h"

using hn::stack::comm::choose_spin_policy;
using hn::stack::comm::request_short_slice;
using std::chrono::microseconds;

namespace {

// Runs `f` with this thread bound to the first CPU it may use, then restores.
template <typename F>
void bound_to_one_cpu(F f) {
  cpu_set_t old, one;
  REQUIRE(sched_getaffinity(0, sizeof old, &old) == 0);
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &old)) {
      CPU_SET(c, &one);
      break;
    }
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  f();
  REQUIRE(sched_setaffinity(0, sizeof old, &old) == 0);
}

// This thread's slice (sched_attr.sched_runtime) in microseconds, or -1.
long slice_us() {
  struct {
    std::uint32_t size, policy;
    std::uint64_t flags;
    std::int32_t nice;
    std::uint32_t priority;
    std::uint64_t runtime, deadline, period;
    std::uint32_t util_min, util_max;
  } a{};
  if (syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) != 0) return -1;
  return static_cast<long>(a.runtime / 1000);
}

// Custom slices for SCHED_OTHER came with Linux 6.12.
bool kernel_has_custom_slices() {
  utsname u{};
  int major = 0, minor = 0;
  return uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
         (major > 6 || (major == 6 && minor >= 12));
}

}  // namespace

TEST_CASE(
    "short slice: the scheduler gets the slice asked for, nice is kept, 0 opts out, garbage is an "
    "InputError") {
  if (!kernel_has_custom_slices()) hn::test::skip("custom slices need Linux 6.12 or later");
  unsetenv("HN_SCHED_SLICE_US");
  const int nice_before = getpriority(PRIO_PROCESS, 0);
  REQUIRE(request_short_slice(std::chrono::microseconds(300)));
  CHECK(slice_us() == 300);
  CHECK(getpriority(PRIO_PROCESS, 0) == nice_before);
  setenv("HN_SCHED_SLICE_US", "500", 1);
  REQUIRE(request_short_slice(std::chrono::microseconds(300)));
  CHECK(slice_us() == 500);
  setenv("HN_SCHED_SLICE_US", "0", 1);
  CHECK_FALSE(request_short_slice(std::chrono::microseconds(300)));
  CHECK(slice_us() == 500);  // left alone
  for (const char* bad : {"", "abc", "-5", "1e3", "100001", "9999999"}) {
    INFO("HN_SCHED_SLICE_US='" << bad << "'");
    setenv("HN_SCHED_SLICE_US", bad, 1);
    CHECK_THROWS_AS(request_short_slice(std::chrono::microseconds(300)), hn::compat::InputError);
    CHECK(slice_us() == 500);
  }
  unsetenv("HN_SCHED_SLICE_US");
}

TEST_CASE("spin policy: oversubscribed ranks yield at once, never pause-spin") {
  unsetenv("HN_SPIN_US");
  const int cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  auto p = choose_spin_policy(cpus + 1, microseconds(1), microseconds(2), microseconds(3));
  CHECK(p.spin == microseconds(2));
  CHECK(p.yield);
  CHECK(p.pauses == 0);
  // Binding does not change it: the peer still waits for our core.
  bound_to_one_cpu([&] {
    auto q = choose_spin_policy(cpus * 2, microseconds(1), microseconds(2), microseconds(3));
    CHECK(q.pauses == 0);
    CHECK(q.yield);
  });
}

TEST_CASE("spin policy: a rank bound to one CPU polls without yielding") {
  unsetenv("HN_SPIN_US");
  bound_to_one_cpu([] {
    auto p = choose_spin_policy(1, microseconds(1), microseconds(2), microseconds(3));
    CHECK(p.spin == microseconds(1));
    CHECK_FALSE(p.yield);
    CHECK(p.pauses > 0);
  });
}

TEST_CASE("spin policy: an unbound rank pause-spins, then yields, and HN_SPIN_US sets the time") {
  cpu_set_t set;
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  if (CPU_COUNT(&set) < 2) {
    hn::test::skip("this process may use one CPU only, so it is always bound");
  }
  unsetenv("HN_SPIN_US");
  auto p = choose_spin_policy(1, microseconds(1), microseconds(2), microseconds(3));
  CHECK(p.spin == microseconds(3));
  CHECK(p.yield);
  CHECK(p.pauses > 0);
  setenv("HN_SPIN_US", "42", 1);
  CHECK(choose_spin_policy(1, microseconds(1), microseconds(2), microseconds(3)).spin ==
        microseconds(42));
  unsetenv("HN_SPIN_US");
}
