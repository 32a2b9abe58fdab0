#pragma once
// Report files are read by other programs (CI, gate, a Prolog) that may look
// at them at any moment, and a run may be killed mid-write by its deadline. So
// an output file is either the old one or the complete new one, never partial.

#include <string>

namespace hn::reports {

// Writes content to path: "-" means stdout. Otherwise the content goes to a
// temp file next to the target (same file system, so the rename is atomic),
// which is fsynced and renamed over the target; then the directory is fsynced
// so the rename survives a crash. A new file gets 0666 minus the umask, a
// replaced one keeps its mode. A symlink at path is replaced, not followed.
// A device, FIFO or socket at path (or a symlink to one, such as /dev/null or
// /dev/stdout) is written in place instead, never replaced.
// On any failure the temp file is removed and std::runtime_error names the
// path, the step and strerror.
void write_output(const std::string& path, const std::string& content);

}  // namespace hn::reports
