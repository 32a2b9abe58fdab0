#include "reports/atomic_file.h"

#include "reports/output_slot.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
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
  TempFile(std::string name, int dir_fd, int fd) : name_(std::move(name)), dir_fd_(dir_fd), fd_(fd) {}
  TempFile(TempFile&& o) noexcept : name_(std::move(o.name_)), dir_fd_(o.dir_fd_), fd_(o.fd_) {
    o.name_.clear();
    o.fd_ = -1;
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!name_.empty()) ::unlinkat(dir_fd_, name_.c_str(), 0);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile& operator=(TempFile&&) = delete;
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  // close() can report a deferred write error (NFS), so it is checked.
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void release() { name_.clear(); }

 private:
  std::string name_;
  int dir_fd_;
  int fd_;
};

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
// wait bounded by the deadline. Opened relative to the slot's directory with
// O_NOFOLLOW (a /proc link is the kernel's and is followed). Returns false,
// writing nothing, when what it opened turned out to be a regular file put
// there since the walk (the caller then replaces it as usual); a regular file
// behind a /proc link is appended to, as its shell descriptor would be.
bool write_in_place(const std::string& path, const OutputSlot& slot, const std::string& content,
                    std::chrono::steady_clock::time_point deadline) {
  const int follow = slot.magic() ? 0 : O_NOFOLLOW;
  int fd = -1;
  for (;;) {
    fd = ::openat(slot.dir_fd(), slot.name().c_str(),
                  O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | follow);
    if (fd >= 0) break;
    if (errno == EINTR) continue;
    // A FIFO nobody reads yet: wait for a reader, until the deadline.
    if (errno != ENXIO) fail(path, "open", errno);
    if (ms_until(deadline) == 0) timed_out(path, "no process opened the FIFO for reading");
    ::usleep(static_cast<useconds_t>(std::min(ms_until(deadline), 10) * 1000));
  }
  TempFile closer("", -1, fd);  // no temp file here; only closes the descriptor
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, "stat", errno);
  if (S_ISDIR(st.st_mode)) fail(path, "open", EISDIR);
  if (S_ISREG(st.st_mode)) {
    if (!slot.magic()) return false;
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, (flags | O_APPEND) & ~O_NONBLOCK) != 0)
      fail(path, "fcntl", errno);
  }
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
  return true;
}

// A fresh temp file in the slot's directory, named after the target so a
// leftover (power loss) explains itself. O_EXCL | O_NOFOLLOW: never an
// existing file, never through a link.
TempFile create_temp(const std::string& path, const OutputSlot& slot) {
  std::string base = slot.name().substr(0, 200);  // room for the suffix within NAME_MAX
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned char rnd[6] = {};
    if (::getrandom(rnd, sizeof rnd, 0) != static_cast<ssize_t>(sizeof rnd))
      fail(path, "getrandom", errno);
    std::string name = "." + base + ".tmp-";
    for (unsigned char c : rnd) name += kChars[c % (sizeof kChars - 1)];
    int fd = ::openat(slot.dir_fd(), name.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) return TempFile(name, slot.dir_fd(), fd);
    if (errno != EEXIST) fail(path, "create temp file", errno);
  }
  fail(path, "create temp file", EEXIST);
}

// The mode of the file we write: an existing file's permission bits only
// when it is ours, never 07000.
mode_t output_mode(const OutputSlot& slot) {
  if (slot.exists() && S_ISREG(slot.st().st_mode) && slot.st().st_uid == ::geteuid())
    return slot.st().st_mode & 0777;
  return 0666 & ~current_umask();
}

// Writes, syncs and closes the temp file; the caller renames it.
void fill_temp(const std::string& path, const OutputSlot& slot, TempFile& tmp,
               const std::string& content) {
  if (::fchmod(tmp.fd(), output_mode(slot)) != 0) fail(path, "chmod temp file", errno);
  write_all(tmp.fd(), content, path);
  if (::fsync(tmp.fd()) != 0) fail(path, "fsync", errno);
  if (tmp.close() != 0) fail(path, "close", errno);
}

void sync_dir(const std::string& path, const OutputSlot& slot) {
  int dfd = ::openat(slot.dir_fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail(path, "open directory", errno);
  int rc = ::fsync(dfd);
  int err = errno;
  ::close(dfd);
  // Some file systems cannot fsync a directory; the data itself is synced.
  if (rc != 0 && err != EINVAL && err != EROFS) fail(path, "fsync directory", err);
}

OutputSlot resolve_for_file(const std::string& path) {
  OutputSlot slot = OutputSlot::resolve(path);
  if (slot.exists() && S_ISDIR(slot.st().st_mode))
    throw std::runtime_error("cannot write " + path + ": is a directory");
  return slot;
}

}  // namespace

std::string output_path_problem(const std::string& path) {
  if (path == "-") return "";
  if (path.empty()) return "needs a file path or '-'";
  try {
    OutputSlot slot = OutputSlot::resolve(path);
    if (slot.exists()) {
      if (S_ISDIR(slot.st().st_mode)) return path + " is a directory, expected a file path";
      if (slot.magic() || !S_ISREG(slot.st().st_mode)) return "";  // written in place
    }
    if (::faccessat(slot.dir_fd(), ".", W_OK | X_OK, 0) != 0)
      return "cannot write " + path + ": directory " + slot.shown_dir() +
             " is not writable: " + std::strerror(errno);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::optional<std::string> read_existing_output(const std::string& path, std::size_t max_bytes) {
  try {
    OutputSlot slot = OutputSlot::resolve(path);
    if (!slot.exists() || slot.magic() || !S_ISREG(slot.st().st_mode)) return std::nullopt;
    int fd = ::openat(slot.dir_fd(), slot.name().c_str(),
                      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    TempFile closer("", -1, fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    std::string out(max_bytes, '\0');
    std::size_t got = 0;
    while (got < max_bytes) {
      ssize_t n = ::read(fd, out.data() + got, max_bytes - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    return out;
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

void write_output(const std::string& path, const std::string& content,
                  std::chrono::steady_clock::time_point deadline) {
  if (path == "-") return write_stdout(content);
  OutputSlot slot = resolve_for_file(path);
  // A device, FIFO or socket (or our link to one: /dev/null, /dev/stdout) is
  // written in place: renaming a file over it would destroy it, and as root
  // that means replacing /dev/null for every process on the machine.
  if (slot.exists() && (slot.magic() || !S_ISREG(slot.st().st_mode)) &&
      write_in_place(path, slot, content, deadline))
    return;
  TempFile tmp = create_temp(path, slot);
  fill_temp(path, slot, tmp, content);
  if (::renameat(slot.dir_fd(), tmp.name().c_str(), slot.dir_fd(), slot.name().c_str()) != 0)
    fail(path, "rename", errno);
  tmp.release();
  sync_dir(path, slot);
}

void write_outputs_together(const std::vector<OutputFile>& files) {
  std::vector<OutputSlot> slots;
  std::vector<TempFile> temps;
  slots.reserve(files.size());
  temps.reserve(files.size());
  for (const auto& f : files) {
    if (f.path == "-") fail(f.path, "open", EINVAL);
    slots.push_back(resolve_for_file(f.path));
    if (slots.back().exists() && !S_ISREG(slots.back().st().st_mode))
      throw std::runtime_error("cannot write " + f.path +
                               ": not a regular file (files written together are replaced "
                               "as a set)");
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    temps.push_back(create_temp(files[i].path, slots[i]));
    fill_temp(files[i].path, slots[i], temps.back(), files[i].content);
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::renameat(slots[i].dir_fd(), temps[i].name().c_str(), slots[i].dir_fd(),
                   slots[i].name().c_str()) != 0)
      fail(files[i].path, "rename", errno);
    temps[i].release();
  }
  for (std::size_t i = 0; i < files.size(); ++i) sync_dir(files[i].path, slots[i]);
}

}  // namespace hn::reports
