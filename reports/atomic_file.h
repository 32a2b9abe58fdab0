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
// replaced one keeps its mode. A symlink at path is written through: the temp
// file is made next to the file it finally points at (resolve_output_target)
// and renamed over that file, so the link stays a link and its target gets
// the content. A device, FIFO or socket at path (or a symlink to one, such as
// /dev/null or /dev/stdout) is written in place instead, never replaced. A
// directory is refused ("is a directory").
// On any failure the temp file is removed and std::runtime_error names the
// path, the step and strerror.
void write_output(const std::string& path, const std::string& content);

// The file write_output(path) replaces: path itself, or the file its symlink
// chain ends at (realpath when that exists; for a dangling link, the name the
// last link points at, which write_output then creates).
std::string resolve_output_target(const std::string& path);

// Why write_output(path) would fail before anything is written, or "" when it
// should succeed: empty name, a directory, a missing parent directory, a parent
// that is not a directory or not writable. For commands to check their output
// options before doing the work (so a typo does not cost a whole run).
std::string output_path_problem(const std::string& path);

}  // namespace hn::reports
