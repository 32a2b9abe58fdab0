#pragma once
// Runs a function in a forked child under a wall-clock limit and an
// address-space limit, and reports how it ended and its peak memory
// (getrusage of that child alone, via wait4). Readers' hostile-input tests
// use it so that a hang or a memory blow-up is a clean test failure with a
// number, not a stuck or OOM-killed test binary. The child must not touch
// Catch2: it reports through its exit code (fn's return value, 0..125).

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace hn::test {

struct ChildOutcome {
  bool finished = false;  // exited on its own before the deadline
  int exit_code = -1;     // when finished
  int signal = 0;         // when killed by a signal (SIGKILL at the deadline too)
  long peak_rss_kib = 0;  // ru_maxrss of the child
  std::chrono::milliseconds elapsed{0};
  std::string describe() const;  // "exit 3 after 12 ms, peak 20480 KiB"
};

// address_space_bytes: RLIMIT_AS for the child (0: unlimited). An allocation
// past it fails (std::bad_alloc), so a runaway reader ends instead of
// exhausting the machine.
ChildOutcome run_bounded(const std::function<int()>& fn, std::chrono::milliseconds limit,
                         std::size_t address_space_bytes = 0);

}  // namespace hn::test
