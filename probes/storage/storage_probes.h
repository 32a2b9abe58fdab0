#pragma once
// The storage probes `hnprecheck node` runs, per profile mount:
//
//   storage.mount <path>   mount checks (probes/storage/mount_check.h)
//   storage.jitter <path>  the I/O jitter workload (probes/storage/jitter_check.h),
//                          only when the profile has a storage.jitter section
//                          or node runs with --storage-jitter, and the mount
//                          does not say `jitter: false`
//
// Live, both are Isolation::kChild probes whose child supervises a worker
// (drivers/supervised_worker.h): the worker does every call that touches the
// mount; the child stops it a margin before the runner's deadline, reports a
// hung mount as STOR-MOUNT-HUNG naming the call that hung, and removes the
// worker's scratch files in a second killable child. Deadlines: mount checks
// get `timeout_s`, the jitter run `duration_s + timeout_s`, each plus
// kCleanupAllowance. Replaying a snapshot, mount checks run in-process on the
// captured table and the jitter run is a SKIP.

#include <chrono>
#include <memory>
#include <vector>

#include "probes/node_context.h"
#include "probes/probe.h"

namespace hn::probes::storage {

constexpr std::chrono::milliseconds kCleanupAllowance{500};

std::vector<Probe> storage_probes(std::shared_ptr<const NodeContext> ctx);

// One probe's body, as the runner's child calls it; for tests and benches.
std::vector<reports::Finding> run_mount_probe(const NodeContext& ctx,
                                              const formats::MountSpec& spec,
                                              std::chrono::steady_clock::time_point kill_at);
std::vector<reports::Finding> run_jitter_probe(const NodeContext& ctx,
                                               const formats::MountSpec& spec,
                                               std::chrono::steady_clock::time_point kill_at);

}  // namespace hn::probes::storage
