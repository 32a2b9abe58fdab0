// allreduce (ring, recursive doubling) and reduce_scatter (ring).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "compat/input_error.h"
#include "stack/l3_comm/blocks.h"
#include "stack/l3_comm/cma_allreduce.h"
#include "stack/l3_comm/collectives.h"
#include "stack/l3_comm/direct_allreduce.h"
#include "stack/l3_comm/flat_allreduce.h"
#include "stack/l3_comm/shm/device.h"
#include "stack/l3_comm/staged_allreduce.h"
#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

namespace {

using op::ReduceOp;

std::byte* B(void* p) {
  return static_cast<std::byte*>(p);
}
const std::byte* B(const void* p) {
  return static_cast<const std::byte*>(p);
}

void copy_if_needed(void* dst, const void* src, std::size_t bytes) {
  if (dst != src && bytes) op::copy_bytes(dst, src, bytes);
}

// Reduce-scatter then allgather around the ring; every send after the first
// is gated on the receive it forwards, so the whole thing is one pipeline.
//
// Large messages are cut into `slices` (ring_slice_bytes), each a full ring
// of its own, and the steps are issued as a wavefront: step k of slice j goes
// into the streams at position j + k, after step k-1 of slice j+1. So a block
// is forwarded while the bytes just reduced into it are still in the cache
// (one slice step later) instead of S/n bytes later, from DRAM; and the
// stream never waits for a slice's own round trip, since the next slice's
// ungated data is queued ahead. slices = 1 is the plain step-by-step ring.
void ring_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                    const Options& o) {
  const int n = c.size(), r = c.rank(), right = mod(r + 1, n), left = mod(r - 1, n);
  const std::size_t esz = op::dtype_size(o.dtype);
  const std::size_t slice_bytes = ring_slice_bytes(c, count * esz);
  std::size_t slices = 1;
  if (slice_bytes > 0) slices = std::max<std::size_t>(1, count * esz / slice_bytes);
  // Element range of block b of slice j: slices split count evenly, blocks
  // split each slice evenly (the first ones get the remainder).
  auto range = [&](std::size_t j, int b, std::size_t& off, std::size_t& len) {
    std::size_t s0 = count / slices * j + std::min(j, count % slices);
    std::size_t sc = count / slices + (j < count % slices ? 1 : 0);
    std::size_t base = sc / n, rem = sc % n, ub = static_cast<std::size_t>(b);
    off = (s0 + base * ub + std::min(ub, rem)) * esz;
    len = (base + (ub < rem ? 1 : 0)) * esz;
  };
  Schedule& s = c.schedule(o.dtype, o.op);
  const int steps = 2 * (n - 1);
  // prev[j]: the last receive of slice j (what its next send forwards).
  std::vector<int>& prev = c.index_scratch(slices);
  for (std::size_t t = 0; t < slices + steps - 1; ++t) {
    for (int k = 0; k < steps; ++k) {
      const std::size_t uk = static_cast<std::size_t>(k);
      if (t < uk || t - uk >= slices) continue;
      const std::size_t j = t - uk;
      std::size_t so, sl, ro, rl;
      if (k < n - 1) {  // reduce-scatter
        const int sb = mod(r - k, n), rb = mod(r - k - 1, n);
        range(j, sb, so, sl);
        range(j, rb, ro, rl);
        const std::byte* src = k == 0 ? B(send) + so : B(recv) + so;
        s.send_gated(right, src, sl, k == 0 ? -1 : prev[j]);
        prev[j] = s.recv_reduce(left, B(recv) + ro, B(send) + ro, rl,
                                k == n - 2 && o.op == ReduceOp::kAvg);
      } else {  // allgather
        const int a = k - (n - 1), sb = mod(r + 1 - a, n), rb = mod(r - a, n);
        range(j, sb, so, sl);
        range(j, rb, ro, rl);
        s.send_gated(right, B(recv) + so, sl, prev[j]);
        prev[j] = s.recv(left, B(recv) + ro, rl);
      }
    }
  }
  c.run(s, "allreduce (ring)", o.timeout);
}

// Recursive doubling on the largest power of two p2 <= n; the n - p2 extra
// ranks first fold into a partner and get the result back at the end. Each
// round reads one buffer and reduces into the other (ping-pong); a round's
// receive starts only after the previous round completed, because it
// overwrites the buffer that round was sending.
void rd_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                  const Options& o) {
  const int n = c.size(), r = c.rank();
  const std::size_t bytes = count * op::dtype_size(o.dtype);
  int p2 = 1;
  while (p2 * 2 <= n) p2 *= 2;
  const int extra = n - p2;
  std::byte* other = c.scratch(0, bytes);
  const std::byte* cur = B(send);
  if (send == recv) {
    std::byte* copy = c.scratch(1, bytes);
    op::copy_bytes(copy, send, bytes);
    cur = copy;
  }
  Schedule& s = c.schedule(o.dtype, o.op);
  const bool avg = o.op == ReduceOp::kAvg;
  if (r < 2 * extra && r % 2 == 1) {  // folds into r-1, gets the result back
    s.send(r - 1, cur, bytes);
    s.recv(r - 1, recv, bytes);
    c.run(s, "allreduce (recursive doubling)", o.timeout);
    return;
  }
  int rounds = 0;
  while ((1 << rounds) < p2) ++rounds;
  const bool folds = r < 2 * extra;
  const int writes = rounds + (folds ? 1 : 0);
  // Write w goes to recv when (writes-1-w) is even, so the last lands in recv.
  auto target = [&](int w) { return (writes - 1 - w) % 2 == 0 ? B(recv) : other; };
  int w = 0;
  int prev = -1, prev_send = -1;  // last receive; last round's send
  if (folds) {
    prev = s.recv_reduce(r + 1, target(0), cur, bytes, avg && writes == 1);
    cur = target(0);
    ++w;
  }
  const int vr = folds ? r / 2 : r - extra;
  for (int j = 0; j < rounds; ++j, ++w) {
    int pv = vr ^ (1 << j);
    int partner = pv < extra ? pv * 2 : pv + extra;
    int sidx = s.send_gated(partner, cur, bytes, prev);
    int ridx = s.recv_reduce(partner, target(w), cur, bytes, avg && w == writes - 1);
    if (prev_send >= 0)
      s.set_after(ridx, {prev_send, prev});
    else if (prev >= 0)
      s.set_after(ridx, {prev});
    prev = ridx;
    prev_send = sidx;
    cur = target(w);
  }
  if (folds) s.send_gated(r + 1, recv, bytes, prev);
  c.run(s, "allreduce (recursive doubling)", o.timeout);
}

// Ring reduce-scatter: block r ends on rank r; intermediate sums live in a
// scratch buffer so the caller's send buffer is never written.
void ring_reduce_scatter(Communicator& c, const void* send, void* recv, std::size_t rc,
                         const Options& o) {
  const int n = c.size(), r = c.rank(), right = mod(r + 1, n), left = mod(r - 1, n);
  const std::size_t bb = rc * op::dtype_size(o.dtype);
  std::byte* tmp = c.scratch(0, n > 2 ? bb * n : 0);
  Schedule& s = c.schedule(o.dtype, o.op);
  int prev = -1;
  for (int k = 0; k < n - 1; ++k) {
    int sb = mod(r - k - 1, n), rb = mod(r - k - 2, n);
    const std::byte* src = k == 0 ? B(send) + sb * bb : tmp + sb * bb;
    s.send_gated(right, src, bb, prev);
    bool last = k == n - 2;
    std::byte* dst = last ? B(recv) : tmp + rb * bb;
    prev = s.recv_reduce(left, dst, B(send) + rb * bb, bb, last && o.op == ReduceOp::kAvg);
  }
  c.run(s, "reduce_scatter (ring)", o.timeout);
}

}  // namespace

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::kAuto:
      return "auto";
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kRecursiveDoubling:
      return "rd";
    case Algorithm::kStaged:
      return "staged";
    case Algorithm::kCma:
      return "cma";
  }
  return "?";
}

Algorithm algorithm_from_string(std::string_view s) {
  if (s == "auto") return Algorithm::kAuto;
  if (s == "ring") return Algorithm::kRing;
  if (s == "rd" || s == "tree" || s == "recursive-doubling") return Algorithm::kRecursiveDoubling;
  if (s == "staged") return Algorithm::kStaged;
  if (s == "cma") return Algorithm::kCma;
  throw std::invalid_argument("unknown algorithm '" + std::string(s) +
                              "' (expected auto, ring, rd, staged or cma)");
}

std::size_t ring_slice_bytes(const Communicator& c, std::size_t bytes) {
  if (const char* e = std::getenv("HN_RING_SLICE_BYTES")) {
    const std::string v = e;
    if (v.empty() || v.size() > 10 || v.find_first_not_of("0123456789") != std::string::npos)
      throw compat::InputError("environment", 0, 0, "HN_RING_SLICE_BYTES",
                               "expected a byte count (0 = one slice), got '" + v + "'");
    return std::stoull(v);
  }
  // shm rings already forward at piece granularity out of the cache.
  if (c.transport() == TransportKind::kShm) return 0;
  // Measured (bench/README.md "Tuning", Dec 2): 2 ranks over a veth, interleaved
  // runs, busbw median [min-max] per slice size. 16 MiB: 96 KiB slices 3.11
  // [2.66-3.60] GB/s, 128 KiB 2.41, 192 KiB 2.14, 256 KiB 1.38 [1.32-3.43];
  // 64 MiB: 3.00 against 1.21; 1 MiB: 96 KiB 3.01 [2.58-3.19], 256 KiB 3.22
  // [1.01-4.27]. A block is reduced and forwarded from L2 (1 MiB here) only
  // while a step's blocks and the socket data in flight fit beside it; with
  // larger blocks that seems to hold at some moments and not at others, and
  // the swing between runs goes away with small ones. Per block, so that more ranks keep the same
  // per-step working set. Up to 256 KiB one slice is as fast and as steady (3.67 [3.22-3.80]
  // against 3.08 [1.57-3.23] at 256 KiB).
  if (bytes <= (std::size_t{256} << 10)) return 0;
  const std::size_t block = std::size_t{48} << 10;
  return block * static_cast<std::size_t>(c.size());
}

std::size_t latency_crossover_bytes([[maybe_unused]] const Communicator& c) {
  // Measured (bench/README.md "Tuning"): over TCP a ring step costs a round trip, so
  // recursive doubling wins on small messages; from 64 KiB the ring's
  // slices pipeline and recursive doubling's whole-message exchange
  // falls behind (2 ranks over a veth: even at 64 KiB, ring 1.2x at 128 KiB,
  // 1.9x at 256 KiB).
  return std::size_t{64} << 10;
}

void allreduce(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o) {
  const std::size_t bytes = count * op::dtype_size(o.dtype);
  if (c.size() == 1 || count == 0) {
    copy_if_needed(recv, send, bytes);
    c.check_abort("allreduce");
    return;
  }
  Algorithm a = o.algorithm;
  // Buffers in shm windows on every rank: read them in place. windows() is
  // the same on every rank (windows are collective), so all try or none.
  if (a == Algorithm::kAuto && bytes >= direct_min_bytes(c.size()) && c.windows() &&
      try_direct_allreduce(c, send, recv, count, o))
    return;
  if (a == Algorithm::kAuto && use_flat_allreduce(c, bytes)) {
    flat_allreduce(c, send, recv, count, o);
    return;
  }
  // Private buffers on one host: straight from and into the peers' memory
  // when the kernel allows it (cma_allreduce.h), else through the staging
  // area, two rounds per chunk (staged_allreduce.h), or the rings.
  if (a == Algorithm::kCma && !cma_available(c))
    throw std::invalid_argument(
        "allreduce: the cma algorithm needs the shm transport with single copy "
        "(process_vm_readv between the ranks; see HN_SHM_SINGLE_COPY)");
  if (a == Algorithm::kCma || (a == Algorithm::kAuto && use_cma_allreduce(c, bytes))) {
    cma_allreduce(c, send, recv, count, o);
    return;
  }
  if (a == Algorithm::kStaged && c.transport() != TransportKind::kShm)
    throw std::invalid_argument("allreduce: the staged algorithm needs the shm transport");
  if (a == Algorithm::kStaged || (a == Algorithm::kAuto && use_staged_allreduce(c, bytes))) {
    staged_allreduce(c, send, recv, count, o);
    return;
  }
  if (a == Algorithm::kAuto)
    a = bytes < latency_crossover_bytes(c) ? Algorithm::kRecursiveDoubling : Algorithm::kRing;
  if (a == Algorithm::kRing)
    ring_allreduce(c, send, recv, count, o);
  else
    rd_allreduce(c, send, recv, count, o);
}

void reduce_scatter(Communicator& c, const void* send, void* recv, std::size_t recv_count,
                    const Options& o) {
  const std::size_t bb = recv_count * op::dtype_size(o.dtype);
  if (c.size() == 1 || recv_count == 0) {
    copy_if_needed(recv, send, bb);
    c.check_abort("reduce_scatter");
    return;
  }
  ring_reduce_scatter(c, send, recv, recv_count, o);
}

}  // namespace hn::stack::comm
