#pragma once
// Captures this node's snapshot in a supervised worker (drivers/
// supervised_worker.h): an RDMA query, a sensor read or a hung mount can
// sleep in the kernel without bound, and the caller must still return by
// its deadline, naming the step that hung. The worker keeps none of our
// descriptors, so it hands the YAML back through a private temporary file
// that is created and unlinked here in any case.
//
// Contract: call from a single-threaded process (as run_supervised needs).
// `then`, when given, runs in the worker after the capture with the YAML
// (`snapshot --out` writes its file there, so a hung file system is a step
// of the same run). Returns how the run ended and, when it completed, the
// YAML; throws std::runtime_error when the temporary file cannot be made.

#include <functional>
#include <string>

#include "drivers/supervised_worker.h"

namespace hn::preflight {

struct SnapshotCapture {
  drivers::SupervisedRun run;
  std::string yaml;  // when run.end == kCompleted
};

SnapshotCapture capture_live_snapshot(
    drivers::Clock::time_point deadline,
    const std::function<void(drivers::WorkerChannel&, const std::string& yaml)>& then = {});

}  // namespace hn::preflight
