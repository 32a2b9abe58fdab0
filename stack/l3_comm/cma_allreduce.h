#pragma once
// Allreduce of private buffers on one host with a single copy per byte
// (Linux cross-memory attach, process_vm_readv/writev, as Open MPI's vader
// does): rank r reads block r of every peer's input straight from the
// peer's memory, a piece at a time into a scratch piece that stays in its
// cache, reduces it with its own block r into its output, and writes each
// reduced piece into every peer's output while it is still in the cache.
// Per rank that is the minimal traffic (bench/README.md "The bound") plus the
// kernel's copy of the pieces; nothing goes through the rings or the staging
// area. The same two exchanges as the direct path (direct_allreduce.h) keep
// it safe: (1) where every rank's buffers are (which also says every rank
// has entered the call, so its input is written); (2) "your block is in
// place", after which nobody reads our input or writes our output, so we
// may return. In place is safe for the same reason as there: only rank r
// reads or writes block r of any buffer.
//
// Device::single_copy_pid() says whether the kernel lets the ranks do this
// (same user, ptrace allowed); it is the same on every rank, so use_*() is.
// Throws what Communicator::run throws, and LinkError naming the peer when
// the kernel refuses a copy mid-call (the peer exited or changed its
// credentials).

#include <cstddef>

#include "stack/l3_comm/collectives.h"

namespace hn::stack::comm {

// Smallest message auto sends this way (2 ranks: 64 KiB; more: 256 KiB,
// below which the staged path's two mailbox rounds per chunk win).
std::size_t cma_min_bytes(int ranks);

// Whether auto takes this path for `bytes` on c: shm with single copy, and
// at least cma_min_bytes(). The same on every rank of c.
bool use_cma_allreduce(const Communicator& c, std::size_t bytes);

// Whether c can run it at all (--algo cma): shm with single copy.
bool cma_available(const Communicator& c);

void cma_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                   const Options& o);

}  // namespace hn::stack::comm
