#pragma once
// Shared-memory windows: buffers that every rank of a host-local
// communicator maps read-write, so a collective can read a peer's input and
// write its output in place instead of copying them through the rings (NCCL's registered user
// buffers, MPI_Win_allocate_shared). Each window is one memfd per rank,
// published in the group's store as "pid fd bytes" and mapped by every peer
// through /proc/<pid>/fd/<fd> (the same way as the rings' segments).
//
// Contract:
//  - allocate() is collective: every rank of the group calls it in the same
//    order with the same size. It returns this rank's window (page aligned,
//    zero filled) once every rank has mapped every other rank's, or throws
//    LinkError (a segment that cannot be created or mapped, naming the peer)
//    or TimeoutError (a rank that never came) within `timeout`.
//  - release() unmaps one window. Every rank must release a window before
//    any rank passes a buffer in it to a collective again (in practice: at
//    the same point of the program, like allocate()).
//  - find() says whether [p, p + bytes) lies inside one of this rank's live
//    windows and where; peer_base() is where this rank sees that window of
//    another rank (null when released or never mapped), mapped read-write:
//    the direct allreduce writes each reduced block into every peer's output.
// Windows are numbered in allocation order, so equal ids mean the same
// window on every rank. Not thread-safe (one thread per communicator).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stack/l3_comm/store.h"

namespace hn::stack::comm::shm {

class WindowTable {
 public:
  struct Ref {
    std::size_t id = 0;
    std::size_t offset = 0;
  };

  // prefix scopes the store keys of this table's windows ("win/" for the
  // user's; another table in the same group needs its own).
  explicit WindowTable(std::string prefix = "win/") : prefix_(std::move(prefix)) {}
  ~WindowTable();
  WindowTable(const WindowTable&) = delete;
  WindowTable& operator=(const WindowTable&) = delete;

  std::byte* allocate(Store& store, int rank, int world, std::size_t bytes,
                      std::chrono::milliseconds timeout);
  void release(const void* p);
  std::optional<Ref> find(const void* p, std::size_t bytes) const;
  std::byte* peer_base(std::size_t id, int peer) const;
  bool empty() const { return live_ == 0; }

 private:
  struct Window {
    std::size_t bytes = 0;
    int fd = -1;
    int rank = 0;
    std::vector<std::byte*> base;  // by rank; base[rank] is ours; empty once released
  };
  void unmap(Window& w);
  std::string prefix_;
  std::vector<Window> windows_;  // index = id
  std::size_t live_ = 0;
};

}  // namespace hn::stack::comm::shm
