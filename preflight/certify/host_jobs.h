#pragma once
// The host-local work certify hands to a rank's host agent (host_agent.h),
// each run in a fresh single-threaded child of the agent:
//
//   "node"     phase hosts: every `node` probe of this host but the storage
//              jitter runs (the storage phase runs those), under the runner's
//              deadlines, plus a live snapshot for the cross-host checks
//              (captured first, in a supervised worker). Arg: {"node"}.
//              Answer: {"findings": [...], "snapshot": YAML, "snapshot_error"}.
//   "storage"  phase storage: the jitter workload on every profile mount but
//              those in {"skip": [paths]}, with each latency workload's
//              histogram. Answer: {"findings": [...]}.
//
// Both return JSON text; findings in the report's JSON form.

#include <map>
#include <string>

#include "preflight/certify/host_agent.h"
#include "preflight/certify/state.h"

namespace hn::preflight::certify {

std::map<std::string, HostAgent::Job> host_jobs(const CertifyOptions& options);

}  // namespace hn::preflight::certify
