#pragma once
// The collectives, as free functions over a Communicator (Gloo style). Every
// rank calls the same function with the same count, dtype, op, algorithm and
// root. Buffers hold `count` elements of `dtype` unless stated; send and recv
// may be the same pointer (in place) where noted. count may be 0. Reductions
// go through stack/l4_operator (f16/bf16 computed in f32, rounded per step).
// Every call finishes within options.timeout (0: the communicator's) or
// throws TimeoutError / PeerDiedError naming the peer (comm/errors.h).

#include <chrono>
#include <cstddef>
#include <vector>

#include "stack/l3_comm/communicator.h"
#include "stack/l4_operator/dtype.h"

namespace hn::stack::comm {

enum class Algorithm {
  kAuto,               // by message size: latency-optimal below the crossover, ring above
  kRing,               // bandwidth-optimal: reduce-scatter + allgather around a ring, pipelined
  kRecursiveDoubling,  // latency-optimal: log2(n) exchanges (+2 for non-powers of two)
  kStaged,             // allreduce on shm through the staging area (staged_allreduce.h); other
                       // collectives choose as kAuto; an allreduce over TCP throws invalid_argument
  kCma                 // allreduce on shm with a single copy (cma_allreduce.h); other collectives
                       // choose as kAuto; an allreduce without single copy throws invalid_argument
};
std::string_view to_string(Algorithm a);
Algorithm algorithm_from_string(
    std::string_view s);  // "auto", "ring", "rd"/"tree", "staged", "cma"; throws invalid_argument

struct Options {
  op::DType dtype = op::DType::kF32;
  op::ReduceOp op = op::ReduceOp::kSum;
  Algorithm algorithm = Algorithm::kAuto;
  int root = 0;
  std::chrono::milliseconds timeout{0};
};

// The size (bytes) below which kAuto picks recursive doubling (allreduce) or
// a binomial tree (broadcast, reduce). Measured; see bench/README.md "Tuning".
std::size_t latency_crossover_bytes(const Communicator& c);

// Ring allreduce slice size (bytes) for a message of `bytes` on this
// communicator's transport: the ring runs on slices of about this size,
// pipelined as a wavefront; 0 = one slice. Measured; see bench/README.md "Tuning".
// HN_RING_SLICE_BYTES overrides it (for measurements); a value that is not
// a byte count throws compat::InputError (field HN_RING_SLICE_BYTES).
std::size_t ring_slice_bytes(const Communicator& c, std::size_t bytes);

// recv[i] = op over ranks of send[i]. In place: send == recv.
void allreduce(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o);
// send holds size()*recv_count elements; rank r gets the reduction of block r.
// In place: recv == send + rank*recv_count elements.
void reduce_scatter(Communicator& c, const void* send, void* recv, std::size_t recv_count,
                    const Options& o);
// recv holds size()*count elements, block r from rank r. In place: send == recv + rank*count.
void allgather(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o);
// buf on o.root is copied to buf everywhere.
void broadcast(Communicator& c, void* buf, std::size_t count, const Options& o);
// recv (significant on o.root only) = op over ranks of send. In place on the root: send == recv.
void reduce(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o);
// Block j of send (count elements) goes to rank j; block j of recv comes from rank j.
void alltoall(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o);
// Variable sizes, in elements: send_counts[j]/send_displs[j] to rank j,
// recv_counts[j]/recv_displs[j] from rank j. Send and recv must not overlap.
void alltoallv(Communicator& c, const void* send, const std::vector<std::size_t>& send_counts,
               const std::vector<std::size_t>& send_displs, void* recv,
               const std::vector<std::size_t>& recv_counts,
               const std::vector<std::size_t>& recv_displs, const Options& o);
// Point to point. The peer must make the matching call.
void send(Communicator& c, const void* buf, std::size_t count, int peer, const Options& o);
void recv(Communicator& c, void* buf, std::size_t count, int peer, const Options& o);
// Sends to `to` and receives from `from` at the same time (a ring shift when
// to = rank+1, from = rank-1).
void sendrecv(Communicator& c, const void* send_buf, int to, void* recv_buf, int from,
              std::size_t count, const Options& o);
// Returns once every rank has entered it, and on no rank before every rank
// knows that (the dissemination twice, 2 log2(n) rounds): a rank that slept
// while it waited is running again before any rank leaves, so the ranks
// leave together.
void barrier(Communicator& c, const Options& o = {});

}  // namespace hn::stack::comm
