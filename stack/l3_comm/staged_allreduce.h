#pragma once
// Allreduce of private buffers on one host through a shared staging area:
// the path a framework's tensors (heap memory no peer can map) take over
// shm. Per chunk of the message (kStagedChunkBytes), every rank
//   1. copies its chunk of the input into its staging area (a shm window
//      every rank maps: Communicator::staging),
//   2. meets the others in one all-to-all round of the mailbox ("staged"),
//   3. reduces block r of the chunk from every rank's staging area into its
//      own output and into its staging area's result half,
//   4. meets the others again ("reduced"),
//   5. copies every other rank's reduced block from that rank's staging
//      area into its own output.
// Two small rounds per chunk instead of a ring's head/tail handshake per
// piece and a doorbell per publish, and every byte crosses between cores at
// most twice (the peers' input blocks in 3, their reduced blocks in 5).
//
// The staging area has two halves, used by alternate chunks (their parity
// is counted on the communicator, so it is the same on every rank): a rank
// writes half h in step 1 or 3 of chunk k only after it has passed step 2
// of chunk k - 1, which every peer enters only after step 5 of chunk k - 2,
// the last reader of half h. So no third round is needed, and the
// collective returns after step 5.
//
// Faults (fault_injection.h) break the data as on the direct path: a stale
// output (no reduction, no copy), the wrong reduce op, a dropped or shifted
// block (the peer block a rank copies last), a zeroed output. Every rank
// must call it together (allreduce() decides by transport and size, the same
// everywhere). Throws what Communicator::run throws, and LinkError or
// TimeoutError from the staging area's allocation on the first call.

#include <cstddef>

#include "stack/l3_comm/collectives.h"

namespace hn::stack::comm {

// Bytes of the message per chunk (per rank, before the n-way split).
// HN_STAGED_CHUNK_BYTES overrides it (measurements; must be the same on
// every rank).
std::size_t staged_chunk_bytes();

// Whether allreduce (Algorithm::kAuto) of `bytes` on c takes the staged
// path: shm, 3 ranks or more, and at least 64 KiB (where it beat the ring;
// Algorithm::kStaged forces it). allreduce() asks use_cma_allreduce first.
// The same on every rank of c.
bool use_staged_allreduce(Communicator& c, std::size_t bytes);

void staged_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                      const Options& o);

}  // namespace hn::stack::comm
