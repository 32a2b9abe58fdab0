#pragma once
// Runs a program to completion and captures what it printed, for tests that
// drive the real binary. Kills it after timeout_s (exit_code then -1).

#include <string>
#include <vector>

namespace hn::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed or signalled
  std::string out;
  std::string err;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 60,
                          const std::vector<std::string>& extra_env = {});

// run_process of the hnprecheck binary under test (HN_BINARY) with `args`.
ProcessResult run_hnprecheck(std::vector<std::string> args, double timeout_s = 60,
                             const std::vector<std::string>& extra_env = {});

}  // namespace hn::test
