#include "stack/l7_physical/io_phases.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <random>

namespace hn::stack::physical::detail {

namespace {

constexpr std::uint64_t kChunk = 1ull << 20;  // checkpoint I/O size
constexpr std::size_t kAlign = 4096;          // O_DIRECT buffer and size alignment

std::uint64_t ns_since(Clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

struct Buffer {
  explicit Buffer(std::size_t n) : size(std::max<std::size_t>(n, 1)) {
    void* p = nullptr;
    if (posix_memalign(&p, kAlign, (size + kAlign - 1) / kAlign * kAlign) != 0)
      throw std::bad_alloc();
    data.reset(static_cast<char*>(p));
    std::mt19937 rng(12345);
    for (std::size_t i = 0; i < size; ++i) data.get()[i] = static_cast<char>(rng());
  }
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  std::size_t size;
};

struct Fd {
  int fd = -1;
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void full_pwrite(int fd, const char* buf, std::size_t n, std::uint64_t off,
                 const std::string& path) {
  for (std::size_t done = 0; done < n;) {
    ssize_t r = ::pwrite(fd, buf + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw IoError("write", path, r < 0 ? errno : EIO);
    done += static_cast<std::size_t>(r);
  }
}

// Returns bytes read (short only at end of file).
std::size_t full_pread(int fd, char* buf, std::size_t n, std::uint64_t off,
                       const std::string& path) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, buf + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw IoError("read", path, errno);
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

int open_or_throw(const std::string& path, int flags, const char* op) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) throw IoError(op, path, errno);
  return fd;
}

void unlink_or_throw(const std::string& path) {
  if (::unlink(path.c_str()) != 0) throw IoError("unlink", path, errno);
}

// A read-only descriptor that bypasses the page cache when it can. Must be
// opened while the file still has its name.
int open_reader(const std::string& path, bool try_direct, bool& direct) {
  direct = false;
  if (try_direct) {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd >= 0) {
      direct = true;
      return fd;
    }
    if (errno != EINVAL) throw IoError("open(O_RDONLY|O_DIRECT)", path, errno);
  }
  return open_or_throw(path, O_RDONLY, "open(O_RDONLY)");
}

// Reads through `fd`; a file system that accepted O_DIRECT at open but
// refuses the I/O gets one retry through the page cache.
std::size_t read_at(int fd, bool& direct, char* buf, std::size_t n, std::uint64_t off,
                    const std::string& path) {
  try {
    return full_pread(fd, buf, n, off, path);
  } catch (const IoError& e) {
    if (!direct || e.error() != EINVAL) throw;
    int fl = ::fcntl(fd, F_GETFL);
    if (fl < 0 || ::fcntl(fd, F_SETFL, fl & ~O_DIRECT) != 0) throw;
    direct = false;
    return full_pread(fd, buf, n, off, path);
  }
}

void drop_cache(int fd) {
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

}  // namespace

void sync_write(const Phase& ph, int t, ThreadOut& out) {
  const std::uint64_t block = ph.cfg.block_bytes;
  const bool dsync = ph.cfg.sync == SyncMode::kDsync;
  const std::string path = ph.file("sync_write", t);
  Buffer buf(block);
  Fd f;
  f.fd = open_or_throw(path, O_WRONLY | O_CREAT | O_EXCL | (dsync ? O_DSYNC : 0),
                       dsync ? "open(O_CREAT|O_EXCL|O_DSYNC)" : "open(O_CREAT|O_EXCL)");
  unlink_or_throw(path);
  std::uint64_t off = 0;
  while (ph.running()) {
    if (off + block > ph.bytes_per_thread) {
      out.by_bytes = true;
      break;
    }
    auto t0 = Clock::now();
    full_pwrite(f.fd, buf.data.get(), block, off, path);
    if (!dsync && ::fsync(f.fd) != 0) throw IoError("fsync", path, errno);
    out.latency.record(ns_since(t0));
    ++out.ops;
    off += block;
    out.written += block;
  }
}

void random_read(const Phase& ph, int t, ThreadOut& out) {
  const std::uint64_t block = ph.cfg.block_bytes;
  const std::string path = ph.file("random_read", t);
  std::uint64_t size = std::min(ph.cfg.read_file_bytes, ph.bytes_per_thread);
  size = std::max(size / block, std::uint64_t{1}) * block;
  Fd w, r;
  w.fd = open_or_throw(path, O_WRONLY | O_CREAT | O_EXCL, "open(O_CREAT|O_EXCL)");
  bool direct = false;
  r.fd = open_reader(path, ph.cfg.try_direct && block % kAlign == 0, direct);
  unlink_or_throw(path);
  Buffer chunk(std::min<std::uint64_t>(kChunk, size));
  auto w0 = Clock::now();
  for (std::uint64_t off = 0; off < size && ph.running(); off += chunk.size) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size, size - off));
    full_pwrite(w.fd, chunk.data.get(), n, off, path);
    out.written += n;
  }
  if (::fsync(w.fd) != 0) throw IoError("fsync", path, errno);
  out.write_seconds = std::chrono::duration<double>(Clock::now() - w0).count();
  if (!direct) drop_cache(r.fd);
  out.direct = direct;
  const std::uint64_t blocks = out.written / block;
  if (blocks == 0) return;  // the time share ran out while writing the file
  std::mt19937_64 rng(std::random_device{}() ^ static_cast<std::uint64_t>(t));
  Buffer buf(block);
  auto r0 = Clock::now();
  while (ph.running()) {
    std::uint64_t off = (rng() % blocks) * block;
    auto t0 = Clock::now();
    std::size_t n = read_at(r.fd, direct, buf.data.get(), block, off, path);
    out.latency.record(ns_since(t0));
    if (n != block) throw IoError("read (short read)", path, EIO);
    ++out.ops;
    out.read += n;
  }
  out.read_seconds = std::chrono::duration<double>(Clock::now() - r0).count();
  out.direct = direct;  // a refused O_DIRECT read fell back to the page cache
}

void metadata(const Phase& ph, int t, ThreadOut& out) {
  const std::string base = ph.file("meta", t) + "-";
  for (std::uint64_t n = 0; ph.running(); ++n) {
    const std::string path = base + std::to_string(n);
    auto t0 = Clock::now();
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw IoError("open(O_CREAT|O_EXCL)", path, errno);
    if (::close(fd) != 0) {
      ::unlink(path.c_str());
      throw IoError("close", path, errno);
    }
    out.latency.record(ns_since(t0));
    struct stat st {};
    t0 = Clock::now();
    if (::stat(path.c_str(), &st) != 0) {
      int err = errno;
      ::unlink(path.c_str());
      throw IoError("stat", path, err);
    }
    out.latency.record(ns_since(t0));
    t0 = Clock::now();
    unlink_or_throw(path);
    out.latency.record(ns_since(t0));
    out.ops += 3;
  }
}

void checkpoint(const Phase& ph, int t, ThreadOut& out, Clock::time_point write_deadline) {
  const std::string path = ph.file("checkpoint", t);
  std::uint64_t shard = std::min(
      ph.cfg.checkpoint_bytes / static_cast<std::uint64_t>(ph.cfg.threads), ph.bytes_per_thread);
  shard = std::max<std::uint64_t>(shard / kAlign, 1) * kAlign;
  Fd w, r;
  w.fd = open_or_throw(path, O_WRONLY | O_CREAT | O_EXCL, "open(O_CREAT|O_EXCL)");
  bool direct = false;
  r.fd = open_reader(path, ph.cfg.try_direct, direct);
  unlink_or_throw(path);
  Buffer buf(std::min(kChunk, shard));
  auto w0 = Clock::now();
  for (std::uint64_t off = 0; off < shard && ph.running() && Clock::now() < write_deadline;) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size, shard - off));
    auto t0 = Clock::now();
    full_pwrite(w.fd, buf.data.get(), n, off, path);
    out.latency.record(ns_since(t0));
    ++out.ops;
    off += n;
    out.written += n;
  }
  if (out.written >= shard) out.by_bytes = true;
  if (::fsync(w.fd) != 0) throw IoError("fsync", path, errno);
  out.write_seconds = std::chrono::duration<double>(Clock::now() - w0).count();
  if (!direct) drop_cache(r.fd);
  auto r0 = Clock::now();
  for (std::uint64_t off = 0; off < out.written && ph.running();) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size, out.written - off));
    auto t0 = Clock::now();
    std::size_t got = read_at(r.fd, direct, buf.data.get(), n, off, path);
    out.latency.record(ns_since(t0));
    if (got == 0) throw IoError("read (short file)", path, EIO);
    ++out.ops;
    off += got;
    out.read += got;
  }
  out.read_seconds = std::chrono::duration<double>(Clock::now() - r0).count();
  out.direct = direct;
}

}  // namespace hn::stack::physical::detail
