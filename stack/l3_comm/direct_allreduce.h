#pragma once
// Allreduce that reads the peers' buffers in place (shm windows, see
// Communicator::alloc_window): rank r reduces block r of everyone's input
// straight into its own output, then copies every other block from the
// rank that reduced it. Per rank that is one read of each input block it
// owns, one write of it, and one copy of the rest: the traffic of the memory
// bound (bench/membw_bound), without the rings' extra copy in and out.
//
// Three small exchanges over the rings keep it safe: (1) every rank sends
// every other rank where its buffers are, or that they are not in windows;
// (2) "my block is reduced"; (3) "I have read your output", so no rank
// returns (and lets its caller overwrite its buffers) while a peer still
// reads them. The exchanges run on the progress engine, so deadlines, dead
// peers and aborts behave as in every other collective.
//
// try_direct_allreduce() returns false, having moved no data, when any
// rank's send or recv buffer is not inside one of its windows: every rank
// sees the same answers in exchange (1) and so falls back together. The
// caller must call it on every rank or on none (allreduce() decides by
// transport, size and whether the communicator has windows, which are
// collective and so the same everywhere). Throws what Communicator::run
// throws.

#include <cstddef>

#include "stack/l3_comm/collectives.h"

namespace hn::stack::comm {

// Smallest message (bytes) that tries the direct path: the shm crossover
// below which recursive doubling already costs less than the three
// exchanges of the direct path. Not tuned on its own yet (README "Tuning").
inline constexpr std::size_t kDirectMinBytes = 64u << 10;

bool try_direct_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                          const Options& o);

}  // namespace hn::stack::comm
