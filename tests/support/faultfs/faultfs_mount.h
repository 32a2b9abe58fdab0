#pragma once
// A faultfs mounted for the length of a scope (tests and benches).
//
// The constructor starts the faultfs daemon on a fresh mount point under
// /tmp and returns once the mount is in the mount table and the control
// socket answers; it throws std::runtime_error (with the daemon's stderr)
// otherwise. Tear-down always works, even on a hung mount: abort the FUSE
// connection (/sys/fs/fuse/connections/<id>/abort, mounting fusectl if
// needed), SIGKILL the daemon, lazy-unmount, remove the directory. The
// destructor does it; teardown() does it earlier.
//
// Needs root and /dev/fuse: call unavailable_reason() first and skip the
// test with that reason when it is not empty.

#include <sys/types.h>

#include <string>
#include <vector>

namespace hn::test {

class FaultFsMount {
 public:
  // options: extra -o mount options, e.g. {"ro"}; fsname and subtype are
  // "faultfs" (the mount shows as fstype fuse.faultfs, source faultfs).
  explicit FaultFsMount(const std::vector<std::string>& options = {});
  ~FaultFsMount();
  FaultFsMount(const FaultFsMount&) = delete;
  FaultFsMount& operator=(const FaultFsMount&) = delete;

  const std::string& path() const { return mount_point_; }
  // Sends one control command (faults.h); returns the reply, throws
  // std::runtime_error unless it starts with "ok".
  std::string control(const std::string& command) const;
  void teardown();

  static std::string unavailable_reason();

 private:
  std::string dir_, mount_point_, socket_, log_, device_;
  pid_t pid_ = -1;
};

}  // namespace hn::test
