#pragma once
// Checks of one profile mount (storage.mounts[]): the path resolves, the
// mount that really covers it is there (a mount point unless `mountpoint:
// false`), its fstype, options and source match, its probe directory is on
// it, it has the free space and inodes asked for, and a real create, write,
// fsync, read-back and unlink works (skipped for a mount the profile requires
// to be `ro`).
//
// Findings go to a WorkerChannel as they are made, so a worker killed on a
// hung mount has already reported everything before the call that hung.

#include <string>
#include <vector>

#include "drivers/supervised_worker.h"
#include "formats/profile.h"
#include "reports/finding.h"
#include "stack/l7_physical/mountinfo.h"
#include "stack/l7_physical/storage_source.h"

namespace hn::probes::storage {

// Collects emitted findings in-process (snapshot replay, tests).
class CollectingChannel final : public drivers::WorkerChannel {
 public:
  void step(std::string_view what) override { last_step = what; }
  void emit(const reports::Finding& f) override { findings.push_back(f); }
  std::vector<reports::Finding> findings;
  std::string last_step;
};

// Pure: judges the mount covering `resolved` (PRESENT, FSTYPE, OPTIONS,
// SOURCE). Returns the covering mount when the later checks make sense (the
// mount is there), else nullptr.
const stack::physical::MountEntry* judge_mount(
    const formats::MountSpec& spec, const std::string& resolved,
    const std::vector<stack::physical::MountEntry>& mounts, drivers::WorkerChannel& out);

// The live check; run it in a supervised worker. `scratch` is the name of
// the round-trip file in probe_dir (fs_ops.h scratch_name), chosen by the
// supervisor so it can remove the file if the worker is killed.
void check_mount_live(const formats::MountSpec& spec, const stack::physical::StorageSource& source,
                      const std::string& host, const std::string& scratch,
                      drivers::WorkerChannel& out);

// Replay from a snapshot: judge_mount on the lexical path; capacity and the
// round trip are SKIPs, since they need the live mount.
std::vector<reports::Finding> check_mount_snapshot(
    const formats::MountSpec& spec, const std::vector<stack::physical::MountEntry>& mounts);

}  // namespace hn::probes::storage
