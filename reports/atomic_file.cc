#include "reports/atomic_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace hn::reports {

namespace {

[[noreturn]] void fail(const std::string& path, const char* step, int err) {
  throw std::runtime_error("cannot write " + path + ": " + step + ": " + std::strerror(err));
}

void write_all(int fd, const std::string& content, const std::string& path) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// umask() can only be read by setting it, which races with other threads
// creating files; the kernel also reports it in /proc/self/status.
mode_t current_umask() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

// Removes the temp file unless released, so every early exit cleans up.
class TempFile {
 public:
  TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // close() can report a deferred write error (NFS), so it is checked.
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void release() { path_.clear(); }

 private:
  std::string path_;
  int fd_;
};

std::string parent_dir(const std::string& path) {
  std::string::size_type slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

void write_stdout(const std::string& content) {
  if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
      std::fflush(stdout) != 0)
    fail("-", "stdout", errno);
}

// Milliseconds until deadline, at least 0, for poll().
int ms_until(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 0, 1 << 30));
}

[[noreturn]] void timed_out(const std::string& path, const std::string& why) {
  throw std::runtime_error("cannot write " + path + ": timed out at the deadline: " + why +
                           "; nothing more was written");
}

// A FIFO, a device or a socket: opened and written without blocking, every
// wait bounded by the deadline.
void write_in_place(const std::string& path, const std::string& content, const struct stat& st,
                    std::chrono::steady_clock::time_point deadline) {
  int fd = -1;
  for (;;) {
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd >= 0) break;
    if (errno == EINTR) continue;
    // A FIFO nobody reads yet: wait for a reader, until the deadline.
    if (errno != ENXIO || !S_ISFIFO(st.st_mode)) fail(path, "open", errno);
    if (ms_until(deadline) == 0) timed_out(path, "no process opened the FIFO for reading");
    ::usleep(static_cast<useconds_t>(std::min(ms_until(deadline), 10) * 1000));
  }
  TempFile closer("", fd);  // no temp file here; only closes the descriptor
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n > 0) {
      p += n;
      left -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) fail(path, "write", errno);
    pollfd pf{fd, POLLOUT, 0};
    if (::poll(&pf, 1, ms_until(deadline)) == 0)
      timed_out(path, "the reader stopped reading after " +
                          std::to_string(content.size() - left) + " of " +
                          std::to_string(content.size()) + " bytes");
  }
  if (closer.close() != 0) fail(path, "close", errno);
}

}  // namespace

std::string resolve_output_target(const std::string& path) {
  if (char* real = ::realpath(path.c_str(), nullptr)) {
    std::string out = real;
    std::free(real);
    return out;
  }
  // Nothing there yet. A dangling symlink still names where the file goes
  // (as `echo > link` creates its target): follow the chain by hand, with
  // the kernel's own hop limit.
  std::string cur = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    std::string target(4096, '\0');
    ssize_t n = ::readlink(cur.c_str(), target.data(), target.size());
    if (n < 0) return cur;
    target.resize(static_cast<std::size_t>(n));
    cur = target.rfind('/', 0) == 0 ? target : parent_dir(cur) + "/" + target;
  }
  return cur;  // a loop: the write then fails with ELOOP and says so
}

std::string symlink_problem(const std::string& path) {
  std::string cur = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat link {};
    if (::lstat(cur.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return "";
    const std::string dir = parent_dir(cur);
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) == 0 && (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) &&
        link.st_uid != ::geteuid() && link.st_uid != ds.st_uid)
      return "refusing to follow the symlink " + cur + ": it sits in the sticky, world-writable "
             "directory " + dir + " and belongs to uid " + std::to_string(link.st_uid) +
             ", neither us (uid " + std::to_string(::geteuid()) + ") nor the directory's owner (uid " +
             std::to_string(ds.st_uid) + "); another user could point it at any file we may "
             "write (the kernel's fs.protected_symlinks rule). Write to a path that user "
             "does not control";
    std::string target(4096, '\0');
    ssize_t n = ::readlink(cur.c_str(), target.data(), target.size());
    if (n < 0) return "";
    target.resize(static_cast<std::size_t>(n));
    cur = target.rfind('/', 0) == 0 ? target : dir + "/" + target;
  }
  return "";
}

std::string output_path_problem(const std::string& path) {
  if (path == "-") return "";
  if (path.empty()) return "needs a file path or '-'";
  if (std::string why = symlink_problem(path); !why.empty()) return why;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return path + " is a directory, expected a file path";
    if (!S_ISREG(st.st_mode)) return "";  // a device or FIFO: written in place
  }
  if (path.back() == '/') return path + " names a directory, expected a file path";
  const std::string dir = parent_dir(resolve_output_target(path));
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0)
    return "cannot write " + path + ": directory " + dir + ": " + std::strerror(errno);
  if (!S_ISDIR(ds.st_mode)) return "cannot write " + path + ": " + dir + " is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "cannot write " + path + ": directory " + dir +
           " is not writable: " + std::strerror(errno);
  return "";
}

void write_output(const std::string& path, const std::string& content,
                  std::chrono::steady_clock::time_point deadline) {
  if (path == "-") return write_stdout(content);
  if (path.empty()) throw std::runtime_error("cannot write an output file with an empty name");
  if (std::string why = symlink_problem(path); !why.empty()) throw std::runtime_error(why);

  // A device, FIFO or socket (or a symlink to one: /dev/null, /dev/stdout) is
  // written in place: renaming a file over it would destroy it, and as root
  // that means replacing /dev/null for every process on the machine.
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode))
      throw std::runtime_error("cannot write " + path + ": is a directory");
    if (!S_ISREG(target.st_mode)) return write_in_place(path, content, target, deadline);
  }

  // Through a symlink to the file it names: renaming over the link itself
  // would turn it into a plain file and leave its target stale.
  const std::string real = resolve_output_target(path);
  std::string::size_type slash = real.rfind('/');
  std::string dir = parent_dir(real);
  std::string base = slash == std::string::npos ? real : real.substr(slash + 1);
  if (base.empty()) throw std::runtime_error("cannot write " + path + ": names a directory");

  // Hidden and named after the target, so a leftover (power loss) explains itself.
  std::string templ = dir + "/." + base + ".tmp-XXXXXX";
  int fd = ::mkostemp(templ.data(), O_CLOEXEC);  // not inherited by forked probes
  if (fd < 0) fail(path, "create temp file", errno);
  TempFile tmp(templ, fd);

  struct stat st {};
  mode_t mode = ::stat(real.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? (st.st_mode & 07777)
                                                                      : (0666 & ~current_umask());
  if (::fchmod(tmp.fd(), mode) != 0) fail(path, "chmod temp file", errno);
  write_all(tmp.fd(), content, path);
  if (::fsync(tmp.fd()) != 0) fail(path, "fsync", errno);
  if (tmp.close() != 0) fail(path, "close", errno);
  if (::rename(tmp.path().c_str(), real.c_str()) != 0) fail(path, "rename", errno);
  tmp.release();

  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail(path, "open directory", errno);
  int rc = ::fsync(dfd);
  int err = errno;
  ::close(dfd);
  // Some file systems cannot fsync a directory; the data itself is synced.
  if (rc != 0 && err != EINVAL && err != EROFS) fail(path, "fsync directory", err);
}

}  // namespace hn::reports
