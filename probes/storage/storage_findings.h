#pragma once
// Shared pieces of the storage probes: number formatting for finding
// parameters, and the classification of a failed call on a mount.

#include <string>

#include "reports/catalog.h"
#include "reports/finding.h"
#include "stack/l7_physical/fs_ops.h"

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

}  // namespace hn::probes::storage
