// choose_spin_policy: which wait a rank uses for where it runs.

#include <catch2/catch.hpp>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include "stack/l3_comm/spin_policy.h"
#include "tests/support/skip.h"

using hn::stack::comm::choose_spin_policy;
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

}  // namespace

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
