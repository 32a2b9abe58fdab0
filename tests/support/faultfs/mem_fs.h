#pragma once
// The in-memory tree faultfs serves: directories and regular files only,
// held in RAM so latency comes from the injected faults alone and not from a
// backing disk. Unlinked files stay readable through open descriptors
// (hard_remove), as on a POSIX file system.

#define FUSE_USE_VERSION 35
#include <fuse3/fuse.h>

#include <cstdint>

#include "tests/support/faultfs/faults.h"

namespace hn::test::faultfs {

// The FUSE operations, gated by `faults`; writes beyond max_bytes in total
// fail with ENOSPC.
fuse_operations mem_fs_operations();
void mem_fs_configure(Faults* faults, std::uint64_t max_bytes);

}  // namespace hn::test::faultfs
