#pragma once
// Where an output file goes, found without a lookup an attacker can redirect.
//
// hnprecheck runs as root in Slurm Prologs and writes reports into
// directories a job's owner can write. A path checked with lstat and then
// used by name is a race: a link created between the two makes root write
// wherever it points. OutputSlot walks the path one component at a time on
// open handles (openat with O_PATH | O_NOFOLLOW), so every check is made on
// the object that is then used: the result is an open handle on the directory
// the file goes into and a final name in it that is not a symlink. Writers
// then create with openat(O_CREAT | O_EXCL | O_NOFOLLOW) and renameat, both
// relative to that handle, so no later lookup follows anything.
//
// Symlinks on the way are followed only when they belong to us (the
// effective uid) or to root: anyone else's link could point at any file we
// may write. This is stricter than the kernel's fs.protected_symlinks (which
// covers only sticky world-writable directories and also trusts the
// directory's owner) because the directory's owner is exactly the user a
// Prolog must not trust. Links inside /proc (/dev/stdout ->
// /proc/self/fd/1) are the kernel's own and are opened by the kernel
// (`magic`), since their targets are open files, not paths.

#include <sys/stat.h>

#include <string>

namespace hn::reports {

class OutputSlot {
 public:
  // Resolves path ("" and a trailing '/' are refused). Follows at most 40
  // links. Throws std::runtime_error naming the path and why: a missing or
  // non-directory parent, an untrusted link, a loop. A missing final name is
  // fine (exists() is false).
  static OutputSlot resolve(const std::string& path);

  OutputSlot(OutputSlot&& other) noexcept;
  OutputSlot& operator=(OutputSlot&&) = delete;
  OutputSlot(const OutputSlot&) = delete;
  ~OutputSlot();

  int dir_fd() const { return dir_fd_; }  // an O_PATH handle, usable as an *at() dirfd
  const std::string& name() const { return name_; }
  const std::string& shown() const { return shown_; }  // the file as a path, for messages
  std::string shown_dir() const;
  bool exists() const { return exists_; }
  const struct stat& st() const { return st_; }  // the final entry; valid when exists()
  bool magic() const { return magic_; }          // a /proc link, opened by the kernel

 private:
  // st: the final entry, or nullptr when there is none yet.
  OutputSlot(int dir_fd, std::string name, std::string shown, const struct stat* st, bool magic);
  int dir_fd_ = -1;
  std::string name_, shown_;
  bool exists_ = false, magic_ = false;
  struct stat st_ {};
};

}  // namespace hn::reports
