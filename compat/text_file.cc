#include "compat/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "compat/input_error.h"

namespace hn::compat {

std::string limit_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError(path, 0, 0, "", what);
}


// Why st is not something we read, or "" when it is a regular file.
std::string not_regular_reason(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "is a directory, expected a file";
  const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO (named pipe)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return std::string("is ") + kind + ", expected a regular file (save the content to a file first)";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens path for reading with every guard of read_text_file; st describes
// exactly what was opened.
Fd open_regular(const std::string& path, struct stat& st) {
  if (path.empty()) fail("(empty file name)", "expected a file path");
  // stat first for a clear message (open() of a socket fails with ENXIO);
  // fstat below is the check that counts, on exactly what was opened.
  if (::stat(path.c_str(), &st) != 0)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (std::string why = not_regular_reason(st); !why.empty()) fail(path, why);
  // O_NONBLOCK: if the path was swapped for a FIFO after the stat, open
  // still returns at once instead of waiting for a writer.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd.get(), &st) != 0) fail(path, std::string("cannot stat: ") + std::strerror(errno));
  if (std::string why = not_regular_reason(st); !why.empty()) fail(path, why);
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
    fail(path, std::string("cannot read: fcntl: ") + std::strerror(errno));
  return fd;
}

}  // namespace

std::string read_file_head(const std::string& path, std::size_t n) {
  struct stat st {};
  Fd fd = open_regular(path, st);
  std::string out(n, '\0');
  std::size_t have = 0;
  while (have < n) {
    ssize_t got = ::read(fd.get(), out.data() + have, n - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(path, std::string("read failed: ") + std::strerror(errno));
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  out.resize(have);
  return out;
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  Fd fd = open_regular(path, st);
  if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    fail(path, "file too large (" + std::to_string(st.st_size) + " bytes; the limit is " +
                   limit_text(max_bytes) + ")");

  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t have = 0;
  char chunk[65536];
  for (;;) {
    // Read into the sized buffer first; the file may also have grown since
    // fstat, so keep reading (bounded) until EOF.
    char* dst = have < out.size() ? out.data() + have : chunk;
    std::size_t room = have < out.size() ? out.size() - have : sizeof chunk;
    ssize_t n = ::read(fd.get(), dst, room);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) break;
    if (dst == chunk) {
      if (have + static_cast<std::size_t>(n) > max_bytes)
        fail(path, "file too large (more than " + limit_text(max_bytes) + ")");
      out.append(chunk, static_cast<std::size_t>(n));
    }
    have += static_cast<std::size_t>(n);
  }
  out.resize(have);
  return out;
}

void reject_nul_bytes(std::string_view text, const std::string& source) {
  const std::size_t at = text.find('\0');
  if (at == std::string_view::npos) return;
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  throw InputError(source, line, static_cast<int>(at - line_start) + 1, "",
                   "a NUL byte (\\x00): a text input cannot hold one (is this a binary file?)");
}

}  // namespace hn::compat
