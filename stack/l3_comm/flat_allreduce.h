#pragma once
// Allreduce of tiny messages as one all-to-all round: every rank sends its
// whole input to every other, then reduces all n inputs itself in rank order
// (reduce_all_inputs), so every rank gets the same bits. One round instead
// of recursive doubling's log2(n) (plus two for a world that is not a power
// of two), at the cost of n - 1 messages per rank and n x bytes of scratch.
// It pays where a round is dear: ranks that outnumber the cores wait for
// the scheduler at every round. Measured (bench/README.md "Tuning"): 4 ranks on 2
// CPUs, 8 B 8.0 vs 9.6 us, 4 KiB 10.4 vs 12.1 us, behind at 16 KiB; 8 ranks
// 8 B 18 vs 24 us; level with 2 ranks, where both are one exchange, so 2
// ranks take it only for messages that fit the mailbox (below).
//
// Runs on the progress engine like every collective (deadlines, dead peers,
// aborts). The exchange runs with test faults paused; the armed fault is
// applied to the local reduction instead, as on the direct path.

#include <cstddef>

#include "stack/l3_comm/collectives.h"

namespace hn::stack::comm {

// The largest message c's pairs carry in their mailbox (0: none, as over
// TCP). Only complete all-to-all rounds may use it (shm/ring.h): the flat
// round here and the direct path's exchanges. The same on every rank.
std::size_t mail_limit(Communicator& c);

// Whether allreduce of `bytes` on c takes the flat path: shared memory,
// 3 to 8 ranks and at most 4 KiB, or 2 ranks and at most one mailbox
// message (Pair::mail_bytes()). The same on every rank of c.
bool use_flat_allreduce(Communicator& c, std::size_t bytes);

// Messages that fit the pairs' mailbox (shm/ring.h) go through it, one
// cache line each, instead of the byte rings: the flat round is the pattern
// the mailbox needs (a message to and from every peer on every call).
// Throws what Communicator::run throws. send may equal recv.
void flat_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                    const Options& o);

}  // namespace hn::stack::comm
