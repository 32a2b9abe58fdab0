#pragma once
// A supervised worker process: the way a probe touches something that can
// block forever in the kernel (a hung NFS or FUSE mount) and still reports
// *what* hung, cleans up, and returns on time.
//
// run_supervised() forks a worker that runs `work`; the worker tells its
// supervisor, over a pipe, which call it is about to make (step) and every
// finding it has made (emit). The supervisor only polls that pipe, so it never
// blocks on the resource. At the deadline, or when SIGTERM/SIGINT reaches the
// supervisor, the worker is SIGKILLed and not waited for: a process asleep in
// a hung mount cannot be reaped until the mount answers. The worker is
// SIGKILLed too when its supervisor dies (PR_SET_PDEATHSIG).
//
// Call only from a single-threaded process (a runner child probe, a test):
// fork copies no other thread's locks. The worker may start threads.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/finding.h"

namespace hn::drivers {

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // About to call something that may block; the last step is what hung.
  virtual void step(std::string_view what) = 0;
  virtual void emit(const reports::Finding& finding) = 0;
};

struct SupervisedRun {
  enum class End {
    kCompleted,    // work returned
    kTimedOut,     // killed at the deadline
    kInterrupted,  // killed because the supervisor got SIGTERM or SIGINT
    kFailed,       // work threw, or the worker crashed
  };
  End end = End::kFailed;
  std::vector<reports::Finding> findings;  // everything emitted before the end
  std::string last_step;                   // the step in progress at the end
  double elapsed_ms = 0;
  std::string failure;  // kFailed: the exception text or how the worker died
};

using Clock = std::chrono::steady_clock;

SupervisedRun run_supervised(const std::function<void(WorkerChannel&)>& work,
                             Clock::time_point deadline);

// Runs fn in a killable child (for cleanup that may itself hang). True when
// it returned by the deadline; otherwise `error` says why not.
bool run_killable(const std::function<void()>& fn, Clock::time_point deadline, std::string& error);

}  // namespace hn::drivers
