#pragma once
// A probe: one concern turned into findings. The runner (preflight/runner.h)
// executes probes under deadlines; a probe only promises to return findings
// or throw.
//
// Isolation says how much the runner must distrust it. kInProcess probes run
// on a thread and must not block in the kernel (netlink, sysfs). kChild probes
// may touch things that hang (mounts, peers): they run in a forked child that
// is SIGKILLed at the deadline, so a stuck syscall costs one FAIL, not the run.
// A child probe's findings cross a pipe as JSON; it must not rely on side
// effects in the parent.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "reports/finding.h"

namespace hn::probes {

enum class Isolation { kInProcess, kChild };

struct Probe {
  std::string name;  // stable, e.g. "physical.nics"; also the entity of runner findings
  reports::Layer layer = reports::Layer::kL7;
  Isolation isolation = Isolation::kInProcess;
  std::chrono::milliseconds deadline{2000};
  std::function<std::vector<reports::Finding>()> run;
  // Optional, kChild only: called in the child instead of `run`, with the
  // moment the runner will SIGKILL it (min of deadline and the run's end).
  // A probe that supervises its own workers uses it to stop them a margin
  // earlier, clean up, and still report why.
  std::function<std::vector<reports::Finding>(std::chrono::steady_clock::time_point kill_at)>
      run_until;
};

}  // namespace hn::probes
