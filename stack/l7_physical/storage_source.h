#pragma once
// The storage source interface: probes read the mount table only through it,
// so mount checks run on the live kernel and on snapshots alike
// (stack/l7_physical/storage_yaml.h).
//
// Contract: mounts() returns promptly. Reading mountinfo never calls into the
// mounted file systems, so a hung NFS or FUSE server cannot block it;
// everything that does touch a mount (realpath, statvfs, I/O) lives in
// fs_ops.h and io_workload.h and must run in a killable child. The live
// implementation throws SourceError when mountinfo cannot be read or parsed.

#include <memory>
#include <string>
#include <vector>

#include "stack/l7_physical/mountinfo.h"

namespace hn::stack::physical {

class StorageSource {
 public:
  virtual ~StorageSource() = default;
  // The mount table of this process's mount namespace, in kernel order.
  virtual std::vector<MountEntry> mounts() const = 0;
};

// Reads <proc_root>/self/mountinfo.
std::unique_ptr<StorageSource> make_live_storage_source(std::string proc_root = "/proc");

// Serves a captured table.
std::unique_ptr<StorageSource> make_snapshot_storage_source(std::vector<MountEntry> mounts);

}  // namespace hn::stack::physical
