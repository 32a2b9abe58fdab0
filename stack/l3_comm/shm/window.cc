#include "stack/l3_comm/shm/window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <string>

#include "stack/l3_comm/errors.h"

namespace hn::stack::comm::shm {

namespace {

LinkError window_error(const std::string& what, int rank, int peer) {
  ErrorContext c;
  c.local_rank = rank;
  c.peer_rank = peer;
  c.plane = "shm";
  c.operation = "shm window";
  return LinkError(LinkError::Kind::kOther, what + ": " + std::strerror(errno), c);
}

}  // namespace

WindowTable::~WindowTable() {
  for (auto& w : windows_) unmap(w);
}

void WindowTable::unmap(Window& w) {
  for (std::byte* b : w.base)
    if (b) munmap(b, w.bytes);
  if (w.fd >= 0) close(w.fd);
  if (!w.base.empty()) --live_;
  w.base.clear();
  w.fd = -1;
}

std::byte* WindowTable::allocate(Store& store, int rank, int world, std::size_t bytes,
                                 std::chrono::milliseconds timeout) {
  const std::size_t id = windows_.size();
  const std::size_t len = std::max<std::size_t>((bytes + 4095) / 4096 * 4096, 4096);
  windows_.push_back({});
  Window& w = windows_.back();
  w.bytes = len;
  w.rank = rank;
  w.base.assign(static_cast<std::size_t>(world), nullptr);
  ++live_;
  try {
    w.fd = memfd_create("hnprecheck-window", MFD_CLOEXEC);
    if (w.fd < 0) throw window_error("memfd_create", rank, -1);
    if (ftruncate(w.fd, static_cast<off_t>(len)) != 0)
      throw window_error("cannot size a " + std::to_string(len) + "-byte window", rank, -1);
    void* mine = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, w.fd, 0);
    if (mine == MAP_FAILED) throw window_error("cannot map our window", rank, -1);
    w.base[static_cast<std::size_t>(rank)] = static_cast<std::byte*>(mine);
    const std::string key = prefix_ + std::to_string(id) + "/";
    store.set(key + std::to_string(rank),
              std::to_string(getpid()) + " " + std::to_string(w.fd) + " " + std::to_string(len));
    for (int peer = 0; peer < world; ++peer) {
      if (peer == rank) continue;
      std::istringstream in(store.get(key + std::to_string(peer), timeout));
      long pid = -1, fd = -1;
      std::size_t their = 0;
      in >> pid >> fd >> their;
      if (their != len) {
        errno = EINVAL;
        throw window_error("rank " + std::to_string(peer) + " allocated a window of " +
                               std::to_string(their) + " bytes where this rank has " +
                               std::to_string(len) + " (allocate is collective, same size)",
                           rank, peer);
      }
      const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
      int pfd = open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (pfd < 0)
        throw window_error("cannot open rank " + std::to_string(peer) + "'s window " + path, rank,
                           peer);
      void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
      close(pfd);
      if (p == MAP_FAILED)
        throw window_error("cannot map rank " + std::to_string(peer) + "'s window", rank, peer);
      w.base[static_cast<std::size_t>(peer)] = static_cast<std::byte*>(p);
    }
    // Nobody may close its descriptor before everyone has opened it.
    store.set(key + "mapped/" + std::to_string(rank), "1");
    std::vector<std::string> keys;
    for (int r = 0; r < world; ++r) keys.push_back(key + "mapped/" + std::to_string(r));
    store.wait(keys, timeout);
  } catch (...) {
    unmap(w);
    throw;
  }
  return w.base[static_cast<std::size_t>(rank)];
}

void WindowTable::release(const void* p) {
  for (auto& w : windows_)
    if (!w.base.empty() && w.base[static_cast<std::size_t>(w.rank)] == p) {
      unmap(w);
      return;
    }
}

std::optional<WindowTable::Ref> WindowTable::find(const void* p, std::size_t bytes) const {
  const auto* b = static_cast<const std::byte*>(p);
  for (std::size_t id = 0; id < windows_.size(); ++id) {
    const Window& w = windows_[id];
    if (w.base.empty()) continue;
    const std::byte* mine = w.base[static_cast<std::size_t>(w.rank)];
    if (b >= mine && b + bytes <= mine + w.bytes)
      return Ref{id, static_cast<std::size_t>(b - mine)};
  }
  return std::nullopt;
}

std::byte* WindowTable::peer_base(std::size_t id, int peer) const {
  if (id >= windows_.size() || windows_[id].base.empty() || peer < 0 ||
      static_cast<std::size_t>(peer) >= windows_[id].base.size())
    return nullptr;
  return windows_[id].base[static_cast<std::size_t>(peer)];
}

}  // namespace hn::stack::comm::shm
