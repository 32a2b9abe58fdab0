#pragma once
// File-system operations on a (possibly shared, possibly hung) mount: path
// resolution, capacity, a real read-write round trip, and the scratch names
// every test file carries so that leftovers of a killed run can be found.
//
// Contract: every function here may block for as long as the file system
// does (a hung NFS or FUSE server blocks forever). Call them only from a
// process that a supervisor kills at a deadline (drivers/supervised_worker.h).
// `step` is called with a short description before each call that may block,
// so the supervisor can say which operation hung. Failures throw IoError
// carrying the operation, the path and errno; nothing is retried.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hn::stack::physical {

class IoError : public std::runtime_error {
 public:
  IoError(std::string op, std::string path, int err);
  const std::string& op() const { return op_; }  // "fsync", "open(O_CREAT|O_EXCL)"
  const std::string& path() const { return path_; }
  int error() const { return err_; }  // errno

 private:
  std::string op_, path_;
  int err_;
};

// "ESTALE", "EIO", ...; "errno 1234" for a number glibc has no name for.
std::string errno_name(int err);

using StepFn = std::function<void(std::string_view what)>;

// realpath(3). Throws IoError("realpath", path, errno).
std::string resolve_path(const std::string& path, const StepFn& step);

struct FsCapacity {
  std::uint64_t total_bytes = 0, free_bytes = 0;    // free = available to unprivileged users
  std::uint64_t total_inodes = 0, free_inodes = 0;  // total 0: the file system has no inode limit
};
// statvfs(3). Throws IoError("statvfs", path, errno).
FsCapacity fs_capacity(const std::string& path, const StepFn& step);

struct RoundTrip {
  std::uint64_t bytes = 0;
  double seconds = 0;  // create to unlink
};
// Creates `file` (O_CREAT|O_EXCL), writes `bytes` of a pattern, fsyncs, reads
// it back through a fresh descriptor, compares, closes and unlinks it. A
// mismatch throws IoError with errno EIO and op "compare". The file is
// unlinked on every path that can still reach the file system.
RoundTrip rw_round_trip(const std::string& file, std::size_t bytes, const StepFn& step);

// ".hnprecheck-<host>-<pid>-<16 hex digits>": unique per run, and enough to
// tell whether the run that made it is still alive on this host.
std::string scratch_name(const std::string& host, pid_t pid);

struct ScratchOwner {
  std::string host;
  pid_t pid = 0;
};
// Parses a scratch name; false for anything else.
bool parse_scratch_name(std::string_view name, ScratchOwner& owner);

// Removes a scratch file, or a scratch directory and the files in it (scratch
// directories are flat). Missing is fine. Throws IoError on other errors.
void remove_scratch(const std::string& path, const StepFn& step);

// Removes scratch entries in `dir` left by runs on `host` whose process no
// longer exists (a run SIGKILLed on a hung mount) and that have not changed
// for min_age: a live run in another PID namespace on the same host (two
// hostNetwork pods) looks dead by pid but keeps its directory fresh. Looks at
// no more than `max_entries` directory entries so a huge directory stays
// cheap. Returns the names it removed; throws IoError when `dir` cannot be
// read.
std::vector<std::string> remove_stale_scratch(
    const std::string& dir, const std::string& host, const StepFn& step,
    std::chrono::seconds min_age = std::chrono::minutes(10), std::size_t max_entries = 4096);

}  // namespace hn::stack::physical
