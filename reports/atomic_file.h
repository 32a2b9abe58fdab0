#pragma once
// Report files are read by other programs (CI, gate, a Prolog) that may look
// at them at any moment, and a run may be killed mid-write by its deadline. So
// an output file is either the old one or the complete new one, never partial.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hn::reports {

// How long a write into a FIFO or a device may wait when the caller gives
// no deadline of its own (commands without --timeout).
inline constexpr std::chrono::seconds kDefaultOutputDeadline{10};

// Writes content to path: "-" means stdout. Otherwise the path is resolved on
// open handles (OutputSlot: no lookup an attacker can redirect, symlinks
// followed only when they belong to us or root), the content goes to a temp
// file created in the target's directory with O_CREAT | O_EXCL | O_NOFOLLOW,
// is fsynced and renamed over the target with renameat relative to the same
// handle; then the directory is fsynced so the rename survives a crash. So a
// link planted at any moment is replaced, never written through.
// A new file gets 0666 minus the umask. A replaced file keeps its permission
// bits only when it is ours (the effective uid), and never its setuid,
// setgid or sticky bits: root must not inherit a mode another user chose.
// A symlink of ours at path is written through: the file it names is
// replaced, and the link stays a link. A device, FIFO or socket at path (or
// our link to one: /dev/null, /dev/stdout) is written in place, never
// replaced; a regular file reached through a /proc link (/dev/stdout
// redirected to a file) is appended to, as the shell's descriptor would be.
// A directory is refused ("is a directory").
// A FIFO is opened and written without blocking past `deadline`: with no
// reader yet it waits for one, and a reader that stops reading is waited on,
// both only until the deadline, then std::runtime_error ("timed out"): the
// command exits 3 at its --timeout, as `snapshot` does, never hangs.
// On any failure the temp file is removed and std::runtime_error names the
// path, the step and strerror.
void write_output(const std::string& path, const std::string& content,
                  std::chrono::steady_clock::time_point deadline =
                      std::chrono::steady_clock::now() + kDefaultOutputDeadline);

// Several files that belong together (migrate's env file and script): every
// temp file is written and synced first, and only then are they renamed, so a
// failure before the renames (disk full, a read-only directory) leaves every
// target as it was. Only regular files; "-", devices and FIFOs are refused.
// Throws std::runtime_error naming the file that failed.
struct OutputFile {
  std::string path, content;
};
void write_outputs_together(const std::vector<OutputFile>& files);

// Why write_output(path) would fail before anything is written, or "" when it
// should succeed: empty name, a directory, a missing parent directory, a
// parent that is not a directory or not writable, a symlink that is not ours
// or root's. For commands to check their output options before doing the
// work (so a typo does not cost a whole run).
std::string output_path_problem(const std::string& path);

// The first max_bytes of the regular file write_output(path) would replace,
// read through the same resolution (never through someone else's link), or
// nullopt when there is none (missing, not a regular file, unreadable).
std::optional<std::string> read_existing_output(const std::string& path, std::size_t max_bytes);

}  // namespace hn::reports
