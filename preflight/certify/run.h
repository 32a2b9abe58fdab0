#pragma once
// One rank's whole certify run, every rank the same entry point:
//
//   1. join the control channel (control.h; rank 0 hosts the store)
//   2. hello: every rank tells rank 0 its host; rank 0 builds the job plan
//      (plan.h) and tells each rank its role (or that the profile does not
//      match the job: every rank exits 2)
//   3. the phases in order (phase.h): rank 0 plans each one and says "go",
//      the participants run their part, rank 0 gathers their results with
//      bounded fan-in (gather.h) by the phase's deadline and combines them;
//      a rank that dies or stays silent is named and later phases that need
//      ranks are SKIP; the whole run is bounded by --timeout
//   4. rank 0 hands the result to `emit` (report, files, certificate) and
//      tells every rank the exit code; the others exit with it and print
//      nothing unless --log-ranks
//
// If rank 0 dies, every other rank learns it from the rendezvous (or its
// next store call fails) and exits 3 with one line saying so.

#include <functional>

#include "preflight/certify/phase.h"
#include "preflight/certify/state.h"
#include "reports/certificate.h"

namespace hn::preflight::certify {

struct RunResult {
  reports::Certificate certificate;  // phases, hosts, metrics, findings, times
  int exit_code = 0;
};

// Rank 0 only: prints and writes the run's outputs; returns the exit code
// (3 when a file could not be written, else result.exit_code).
using EmitFn = std::function<int(const RunResult& result)>;

// Returns this rank's exit code. Throws compat::InputError before the run
// starts (bad launcher variables); comm errors joining the rendezvous are
// reported and turned into exit 3 here.
int run_certify(const CertifyOptions& options, const comm::CommOptions& comm_options,
                HostAgent& agent, const EmitFn& emit);

}  // namespace hn::preflight::certify
