#pragma once
// Allreduce on the peers' buffers in place (shm windows, see
// Communicator::alloc_window): rank r reduces block r of everyone's input,
// piece by piece, and writes each reduced piece into every rank's output
// while it is still in its cache (push). Per rank that is one read of the
// block r of every input and one write of it into every output, with no
// copy through the rings and no second read of a reduced block (pulling
// each block from the rank that reduced it, as this path did until Dec 2,
// was 2-3x slower from 256 KiB: bench/README.md "Where the time goes").
//
// Two small exchanges over the rings keep it safe: (1) every rank sends
// every other rank where its buffers are, or that they are not in windows;
// (2) "your block is in place", sent after the push: a rank that has it from
// every peer knows its output is complete and that nobody still reads its
// input, so it may return. In place is safe: only rank r reads or writes
// block r of any buffer, and it reads a piece before it writes it. The
// exchanges run on the progress engine, so deadlines, dead peers and aborts
// behave as in every other collective.
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
// (bench/README.md "Tuning"): with 2 ranks the direct path's two exchanges beat one
// recursive-doubling step from 4 KiB; with more ranks (oversubscribed on a
// 2-CPU machine, where every exchange costs a context switch) it is still
// level or behind at 16 KiB (re-measured with the push path), so from 64 KiB.
std::size_t direct_min_bytes(int ranks);

// Reduces n inputs (in[0..n-1], in rank order, so every rank that calls it
// gets the same bits) of `count` elements into out, with the armed test
// fault applied to the block the direct path breaks for this rank (its
// last one). Used by flat_allreduce. out may not overlap any input.
void reduce_all_inputs(const Options& o, testing::Fault fault, int n, int rank,
                       const std::byte* const* in, std::byte* out, std::size_t count);

// Every rank sends `mine` (bytes) to every other and receives theirs into
// `theirs` (one slot of `bytes` per rank, its own slot untouched): a complete
// all-to-all round, so on shm it may go through the mailbox, one line per
// message. Runs with test faults paused (they apply to the data, never to
// this bookkeeping). operation: a string literal (Communicator::run).
void exchange_all(Communicator& c, const void* mine, void* theirs, std::size_t bytes,
                  const Options& o, const char* operation);

// Elements per block of an n-way split: blocks start on 64-byte boundaries
// (whole vectors, no cache line shared by the ranks that write them).
std::size_t block_elems(std::size_t count, std::size_t ranks, std::size_t esz);

bool try_direct_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                          const Options& o);

}  // namespace hn::stack::comm
