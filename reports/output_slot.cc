#include "reports/output_slot.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace hn::reports {

namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit (MAXSYMLINKS)

// Closes on every early exit; take() hands the descriptor on.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(o.take()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  int get() const { return fd_; }
  int take() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::deque<std::string> split(const std::string& path) {
  std::deque<std::string> parts;
  std::string::size_type start = 0;
  while (start <= path.size()) {
    std::string::size_type slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == "/") return "/" + name;
  if (dir == ".") return name;
  return dir + "/" + name;
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("cannot write " + path + ": " + why);
}

Fd open_root(bool absolute, const std::string& path) {
  Fd fd(::open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) fail(path, std::string("open the starting directory: ") + std::strerror(errno));
  return fd;
}

bool on_procfs(int dir_fd) {
  struct statfs fs {};
  return ::fstatfs(dir_fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

std::string untrusted_link(const std::string& shown, uid_t owner) {
  return "refusing to follow the symlink " + shown + ": it belongs to uid " +
         std::to_string(owner) + ", neither us (uid " + std::to_string(::geteuid()) +
         ") nor root, so its owner could point it at any file we may write (at any moment: a "
         "check before the write cannot prevent it). Write to a path that user does not control";
}

}  // namespace

OutputSlot::OutputSlot(OutputSlot&& o) noexcept
    : dir_fd_(o.dir_fd_),
      name_(std::move(o.name_)),
      shown_(std::move(o.shown_)),
      exists_(o.exists_),
      magic_(o.magic_),
      st_(o.st_) {
  o.dir_fd_ = -1;
}

OutputSlot::OutputSlot(int dir_fd, std::string name, std::string shown, const struct stat* st,
                       bool magic)
    : dir_fd_(dir_fd),
      name_(std::move(name)),
      shown_(std::move(shown)),
      exists_(st),
      magic_(magic) {
  if (st) st_ = *st;
}

OutputSlot::~OutputSlot() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

std::string OutputSlot::shown_dir() const {
  std::string::size_type slash = shown_.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : shown_.substr(0, slash);
}

OutputSlot OutputSlot::resolve(const std::string& path) {
  if (path.empty()) throw std::runtime_error("cannot write an output file with an empty name");
  if (path.back() == '/') fail(path, "names a directory, expected a file path");
  std::deque<std::string> todo = split(path);
  if (todo.empty() || todo.back() == "." || todo.back() == "..")
    fail(path, "names a directory, expected a file path");

  const bool absolute = path.front() == '/';
  Fd cur = open_root(absolute, path);
  std::string shown = absolute ? "/" : ".";
  int links = 0;
  while (!todo.empty()) {
    const std::string part = todo.front();
    todo.pop_front();
    const bool last = todo.empty();
    if (part == ".") continue;
    if (part == "..") {
      Fd up(::openat(cur.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (up.get() < 0) fail(path, "directory " + shown + "/..: " + std::strerror(errno));
      cur = std::move(up);
      shown = join(shown, "..");
      continue;
    }
    const std::string here = join(shown, part);
    // The handle both checks and is used: O_NOFOLLOW opens a link itself.
    Fd obj(::openat(cur.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (obj.get() < 0) {
      const int err = errno;
      if (err == ENOENT && last) {
        return OutputSlot(cur.take(), part, here, nullptr, false);
      }
      fail(path, (last ? here : "directory " + here) + ": " + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(obj.get(), &st) != 0) fail(path, here + ": " + std::strerror(errno));
    if (S_ISLNK(st.st_mode)) {
      if (++links > kMaxLinks) fail(path, here + ": " + std::strerror(ELOOP));
      if (last && on_procfs(cur.get())) {
        return OutputSlot(cur.take(), part, here, &st, true);
      }
      if (st.st_uid != ::geteuid() && st.st_uid != 0) fail(path, untrusted_link(here, st.st_uid));
      std::string target(4096, '\0');
      ssize_t n = ::readlinkat(obj.get(), "", target.data(), target.size());
      if (n < 0) fail(path, here + ": readlink: " + std::strerror(errno));
      target.resize(static_cast<std::size_t>(n));
      std::deque<std::string> more = split(target);
      if (more.empty() && target != "/") fail(path, here + ": an empty symlink");
      if (last && (more.empty() || more.back() == "." || more.back() == ".."))
        fail(path, here + " points at a directory, expected a file path");
      todo.insert(todo.begin(), more.begin(), more.end());
      if (target.front() == '/') {
        cur = open_root(true, path);
        shown = "/";
      }
      continue;
    }
    if (last) return OutputSlot(cur.take(), part, here, &st, false);
    if (!S_ISDIR(st.st_mode)) fail(path, here + " is not a directory");
    cur = std::move(obj);
    shown = here;
  }
  fail(path, "names a directory, expected a file path");
}

}  // namespace hn::reports
