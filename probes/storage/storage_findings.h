#pragma once
// Shared pieces of the storage probes: number formatting for finding
// parameters, the classification of a failed call on a mount, and where a
// mount's probes write (its probe directory).

#include <string>
#include <vector>

#include "formats/profile.h"
#include "reports/catalog.h"
#include "reports/finding.h"
#include "stack/l7_physical/fs_ops.h"
#include "stack/l7_physical/mountinfo.h"

namespace hn::probes::storage {

// 0.0123 -> "0.0123", 1.234 -> "1.23", 40.5 -> "40.5", 1234.5 -> "1235".
std::string fmt_value(double v);
// Milliseconds from nanoseconds, formatted as above.
std::string fmt_ms(double ns);

// A failed call on the mount at `path`, by errno: ESTALE -> STOR-MOUNT-STALE,
// EIO -> STOR-MOUNT-IO-ERROR, anything else -> STOR-MOUNT-ACCESS; all FAIL,
// with the operation, the file and errno (name and number) as evidence.
// `context` prefixes the operation ("sync_write: ").
reports::Finding io_error_finding(const stack::physical::IoError& e, const std::string& path,
                                  const std::string& context = "");

// Where the probes of a mount write: spec.probe_dir resolved (`resolved_path`,
// the mount's own path already resolved, when the profile sets none) and the
// mount covering it, which the caller compares with the mount under test.
// ESTALE and EIO from realpath are thrown (physical::IoError: the mount is
// sick, the caller's io_error_finding says so); any other errno is returned
// in `error` with an empty `path`, for the caller to report in its own terms.
struct ProbeDir {
  std::string path;
  int error = 0;
  const stack::physical::MountEntry* mount = nullptr;
};
ProbeDir resolve_probe_dir(const formats::MountSpec& spec, const std::string& resolved_path,
                           const std::vector<stack::physical::MountEntry>& mounts,
                           const stack::physical::StepFn& step);

}  // namespace hn::probes::storage
