#include "stack/l7_physical/fs_ops.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

namespace hn::stack::physical {

namespace {

constexpr std::string_view kScratchPrefix = ".hnprecheck-";

std::string describe(const std::string& op, const std::string& path, int err) {
  return op + "(" + path + ") failed: " + errno_name(err) + " (" + std::strerror(err) + ")";
}

// Closes on scope exit; close() on a network file system can report a
// deferred write error, which the explicit paths check.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

void check_close(Fd& f, const std::string& path, const StepFn& step) {
  step("close " + path);
  if (::close(f.release()) != 0) throw IoError("close", path, errno);
}

}  // namespace

IoError::IoError(std::string op, std::string path, int err)
    : std::runtime_error(describe(op, path, err)),
      op_(std::move(op)),
      path_(std::move(path)),
      err_(err) {}

std::string errno_name(int err) {
  const char* name = strerrorname_np(err);
  return name ? name : "errno " + std::to_string(err);
}

std::string resolve_path(const std::string& path, const StepFn& step) {
  step("realpath " + path);
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) throw IoError("realpath", path, errno);
  return buf;
}

FsCapacity fs_capacity(const std::string& path, const StepFn& step) {
  step("statvfs " + path);
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) throw IoError("statvfs", path, errno);
  FsCapacity c;
  std::uint64_t unit = s.f_frsize ? s.f_frsize : s.f_bsize;
  c.total_bytes = static_cast<std::uint64_t>(s.f_blocks) * unit;
  c.free_bytes = static_cast<std::uint64_t>(s.f_bavail) * unit;
  c.total_inodes = s.f_files;
  c.free_inodes = s.f_favail;
  return c;
}

RoundTrip rw_round_trip(const std::string& file, std::size_t bytes, const StepFn& step) {
  auto t0 = std::chrono::steady_clock::now();
  std::string pattern(bytes, '\0');
  std::mt19937 rng(std::random_device{}());
  for (auto& c : pattern) c = static_cast<char>(rng());
  bool created = false;
  try {
    Fd w;
    step("create " + file);
    w.fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (w.fd < 0) throw IoError("open(O_CREAT|O_EXCL)", file, errno);
    created = true;
    step("write " + file);
    for (std::size_t off = 0; off < bytes;) {
      ssize_t n = ::pwrite(w.fd, pattern.data() + off, bytes - off, static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw IoError("write", file, n < 0 ? errno : EIO);
      off += static_cast<std::size_t>(n);
    }
    step("fsync " + file);
    if (::fsync(w.fd) != 0) throw IoError("fsync", file, errno);
    check_close(w, file, step);

    Fd r;
    step("open for reading " + file);
    r.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (r.fd < 0) throw IoError("open(O_RDONLY)", file, errno);
    std::string back(bytes, '\0');
    step("read " + file);
    for (std::size_t off = 0; off < bytes;) {
      ssize_t n = ::pread(r.fd, back.data() + off, bytes - off, static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw IoError("read", file, errno);
      if (n == 0) throw IoError("read (short file)", file, EIO);
      off += static_cast<std::size_t>(n);
    }
    if (back != pattern)
      throw IoError("compare (read back differs from what was written)", file, EIO);
    check_close(r, file, step);
    step("unlink " + file);
    created = false;
    if (::unlink(file.c_str()) != 0) throw IoError("unlink", file, errno);
  } catch (const IoError&) {
    if (created) ::unlink(file.c_str());  // best effort; the first error is what counts
    throw;
  }
  RoundTrip rt;
  rt.bytes = bytes;
  rt.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rt;
}

std::string scratch_name(const std::string& host, pid_t pid) {
  std::random_device rd;
  std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r));
  std::string h = host.empty() ? "localhost" : host;
  for (auto& c : h)
    if (c == '/') c = '_';
  return std::string(kScratchPrefix) + h + "-" + std::to_string(pid) + "-" + hex;
}

bool parse_scratch_name(std::string_view name, ScratchOwner& owner) {
  if (name.substr(0, kScratchPrefix.size()) != kScratchPrefix) return false;
  name.remove_prefix(kScratchPrefix.size());
  size_t last = name.rfind('-');
  if (last == std::string_view::npos || name.size() - last - 1 != 16) return false;
  for (char c : name.substr(last + 1))
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  size_t mid = name.rfind('-', last - 1);
  if (mid == std::string_view::npos || mid == 0 || last == 0) return false;
  std::string pid_text(name.substr(mid + 1, last - mid - 1));
  if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos ||
      pid_text.size() > 9)
    return false;
  owner.host = std::string(name.substr(0, mid));
  owner.pid = static_cast<pid_t>(std::stol(pid_text));
  return owner.pid > 0;
}

void remove_scratch(const std::string& path, const StepFn& step) {
  step("remove " + path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw IoError("lstat", path, errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw IoError("unlink", path, errno);
    return;
  }
  DIR* d = ::opendir(path.c_str());
  if (!d) throw IoError("opendir", path, errno);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  for (const auto& n : names) {
    std::string p = path + "/" + n;
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) throw IoError("unlink", p, errno);
  }
  if (::rmdir(path.c_str()) != 0 && errno != ENOENT) throw IoError("rmdir", path, errno);
}

std::vector<std::string> remove_stale_scratch(const std::string& dir, const std::string& host,
                                              const StepFn& step, std::chrono::seconds min_age,
                                              std::size_t max_entries) {
  step("list " + dir);
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw IoError("opendir", dir, errno);
  std::vector<std::string> stale;
  std::size_t seen = 0;
  std::string h = host.empty() ? "localhost" : host;
  for (auto& c : h)
    if (c == '/') c = '_';
  while (dirent* e = ::readdir(d)) {
    if (++seen > max_entries) break;
    ScratchOwner owner;
    if (!parse_scratch_name(e->d_name, owner) || owner.host != h) continue;
    // Alive (or not ours to signal): leave it alone.
    if (::kill(owner.pid, 0) == 0 || errno != ESRCH) continue;
    stale.emplace_back(e->d_name);
  }
  ::closedir(d);
  std::vector<std::string> removed;
  const std::time_t now = std::time(nullptr);
  for (const auto& n : stale) {
    const std::string path = dir + "/" + n;
    struct stat st {};
    step("lstat " + path);
    if (::lstat(path.c_str(), &st) != 0) continue;  // gone already
    if (now - st.st_mtime < min_age.count()) continue;
    remove_scratch(path, step);
    removed.push_back(n);
  }
  return removed;
}

}  // namespace hn::stack::physical
