#pragma once
// Runs probes concurrently under deadlines; child probes are forked
// through stack/isolation/child_process.h (its contract holds for them).
//
// Contract: run_probes() returns within options.total plus a few
// milliseconds, whatever the probes do. Each probe gets
// min(probe.deadline, time left in the run). A probe that misses its deadline
// yields one FAIL finding RUN-PROBE-TIMEOUT in the probe's layer; a child
// probe is SIGKILLed then, an in-process probe's thread is abandoned (its
// result is discarded). A probe that throws, or a child that crashes or
// prints garbage, yields an ERROR finding RUN-PROBE-ERROR. Child probes are
// forked before any thread starts, so fork never copies a half-held lock.

#include <chrono>
#include <vector>

#include "probes/probe.h"
#include "reports/finding.h"

namespace hn::preflight {

struct RunOptions {
  std::chrono::milliseconds total{30000};
};

std::vector<reports::Finding> run_probes(const std::vector<probes::Probe>& probes,
                                         const RunOptions& options);

// True once any run abandoned an in-process probe's thread. Such a thread may
// still be running, so the process must end with _exit() rather than running
// static destructors under it (cli.cc does this).
bool threads_abandoned();

}  // namespace hn::preflight
