#pragma once
// Report files are read by other programs (CI, gate, a Prolog) that may look
// at them at any moment, and a run may be killed mid-write by its deadline. So
// an output file is either the old one or the complete new one, never partial.

#include <chrono>
#include <string>

namespace hn::reports {

// How long a write into a FIFO or a device may wait when the caller gives
// no deadline of its own (commands without --timeout).
inline constexpr std::chrono::seconds kDefaultOutputDeadline{10};

// Writes content to path: "-" means stdout. Otherwise the content goes to a
// temp file next to the target (same file system, so the rename is atomic),
// which is fsynced and renamed over the target; then the directory is fsynced
// so the rename survives a crash. A new file gets 0666 minus the umask, a
// replaced one keeps its mode. A symlink at path is written through: the temp
// file is made next to the file it finally points at (resolve_output_target)
// and renamed over that file, so the link stays a link and its target gets
// the content. A device, FIFO or socket at path (or a symlink to one, such as
// /dev/null or /dev/stdout) is written in place instead, never replaced. A
// directory is refused ("is a directory").
// A FIFO is opened and written without blocking past `deadline`: with no
// reader yet it waits for one, and a reader that stops reading is waited on,
// both only until the deadline, then std::runtime_error ("timed out"): the
// command exits 3 at its --timeout, as `snapshot` does, never hangs.
// A symlink that another user planted in a sticky world-writable directory
// (/tmp) is refused (symlink_problem), so root cannot be made to overwrite a
// file it owns through someone else's link.
// On any failure the temp file is removed and std::runtime_error names the
// path, the step and strerror.
void write_output(const std::string& path, const std::string& content,
                  std::chrono::steady_clock::time_point deadline =
                      std::chrono::steady_clock::now() + kDefaultOutputDeadline);

// The kernel's fs.protected_symlinks rule, applied whatever the sysctl says:
// a symlink in a sticky, world-writable directory is followed only when it
// belongs to us (the effective uid) or to the directory's owner. Checks every
// link of path's chain; returns why one may not be followed, or "".
std::string symlink_problem(const std::string& path);

// The file write_output(path) replaces: path itself, or the file its symlink
// chain ends at (realpath when that exists; for a dangling link, the name the
// last link points at, which write_output then creates).
std::string resolve_output_target(const std::string& path);

// Why write_output(path) would fail before anything is written, or "" when it
// should succeed: empty name, a directory, a missing parent directory, a parent
// that is not a directory or not writable, a symlink symlink_problem() refuses. For commands to check their output
// options before doing the work (so a typo does not cost a whole run).
std::string output_path_problem(const std::string& path);

}  // namespace hn::reports
