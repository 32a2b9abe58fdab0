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
// reads them. Small messages between 2 ranks skip (2): each rank reduces
// the whole message from both inputs (read_all_max_bytes), unless a rank
// works in place, where its output would overwrite an input being read. The exchanges run on the
// progress engine, so deadlines, dead peers and aborts behave as in every other collective.
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
#include "stack/l3_comm/fault_injection.h"

namespace hn::stack::comm {

// Smallest message (bytes) that tries the direct path. Measured here
// (README "Tuning"): with 2 ranks the direct path's two exchanges beat one
// recursive-doubling step from 4 KiB; with more ranks (oversubscribed on a
// 2-CPU machine, where every exchange may cost a wake-up) from 64 KiB.
std::size_t direct_min_bytes(int ranks);

// Largest message (bytes) that every rank reduces whole from all inputs, in
// rank order (two exchanges), rather than block-wise with a copy phase
// (three). It reads every input once per rank, so it pays only with 2 ranks,
// where that is the same traffic: up to 256 KiB (measured: ahead to 256 KiB,
// level at 512 KiB, behind from 1 MiB). 0 for more ranks.
std::size_t read_all_max_bytes(int ranks);

// Reduces n inputs (in[0..n-1], in rank order, so every rank that calls it
// gets the same bits) of `count` elements into out, with the armed test
// fault applied as the direct path applies it. Shared by the direct path's
// small case and flat_allreduce. out may not overlap any input.
void reduce_all_inputs(const Options& o, testing::Fault fault, int n, int rank,
                       const std::byte* const* in, std::byte* out, std::size_t count);

bool try_direct_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                          const Options& o);

}  // namespace hn::stack::comm
