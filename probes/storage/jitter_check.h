#pragma once
// The storage jitter check of one mount: runs the workload of
// storage.jitter (stack/l7_physical/io_workload.h) in a scratch directory on
// the mount and judges it: per latency workload a STOR-JITTER-LATENCY summary
// (p50, p90, p99, p99.9, max, tail ratio p99.9/p50) plus one finding per
// configured limit (STOR-JITTER-P50 ... -TAIL; FAIL above the fail limit,
// WARN above the warn limit); for the checkpoint workload, write and read
// throughput against optional minimums and, with checkpoint_estimate_gib,
// the expected save and load time of a checkpoint of that size.

#include <string>
#include <vector>

#include "drivers/supervised_worker.h"
#include "formats/profile.h"
#include "reports/finding.h"
#include "stack/l7_physical/io_workload.h"
#include "stack/l7_physical/storage_source.h"

namespace hn::probes::storage {

// The workload the profile asks for (the parser has validated every field).
stack::physical::WorkloadConfig workload_config(const formats::JitterSpec& jitter);

// Pure: the findings for one workload's result (closed-form testable).
std::vector<reports::Finding> workload_findings(const std::string& path,
                                                const formats::JitterSpec& jitter,
                                                const stack::physical::WorkloadResult& result);

// The live run; call it in a supervised worker. Skips (one SKIP finding)
// when the path is not the mount the profile expects, so a missing mount is
// never benchmarked on the local disk below it. `scratch` names the directory
// created in probe_dir for the run's files.
void run_jitter_live(const formats::MountSpec& spec, const formats::JitterSpec& jitter,
                     const stack::physical::StorageSource& source, const std::string& host,
                     const std::string& scratch, drivers::WorkerChannel& out);

}  // namespace hn::probes::storage
