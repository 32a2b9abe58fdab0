#include "stack/l3_comm/staged_allreduce.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "compat/input_error.h"
#include "stack/l3_comm/direct_allreduce.h"
#include "stack/l3_comm/fault_injection.h"
#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

namespace {

// Where auto takes the staged path (when single copy, cma_allreduce.h, does
// not take it first). Measured (bench/README.md "Tuning", Dec 4; fresh
// inputs, private buffers, the ranks meeting before and after every timed
// call): 4 ranks on 2 CPUs, us per call, 64 KiB 29 against the ring's 37-42,
// 256 KiB 121-245 against 150-173, 16 KiB 14 against 11; 2 ranks level or
// behind the ring from 4 MiB (2.6-3.4 against 2.9-3.5 GB/s), so they keep
// the ring.
constexpr std::size_t kStagedMinBytes = std::size_t{64} << 10;
constexpr int kStagedMinRanks = 3;

// Each round carries the chunk's sequence number, so ranks that disagree on
// where they are (a program that called collectives in a different order)
// fail loudly instead of reading a half that is being rewritten.
void meet(Communicator& c, std::uint64_t seq, const Options& o) {
  const int n = c.size(), r = c.rank();
  auto* seen = reinterpret_cast<std::uint64_t*>(
      c.scratch(2, static_cast<std::size_t>(n) * sizeof(std::uint64_t)));
  seen[r] = seq;
  exchange_all(c, &seq, seen, sizeof seq, o, "allreduce (staged)");
  for (int q = 0; q < n; ++q)
    if (seen[q] != seq)
      throw std::logic_error("allreduce (staged): rank " + std::to_string(q) + " is at chunk " +
                             std::to_string(seen[q]) + ", this rank at " + std::to_string(seq) +
                             ": every rank must call the same collectives in the same order");
}

}  // namespace

std::size_t staged_chunk_bytes() {
  if (const char* e = std::getenv("HN_STAGED_CHUNK_BYTES")) {
    const std::string v = e;
    if (v.empty() || v.size() > 10 || v.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(v) < 4096)
      throw compat::InputError("environment", 0, 0, "HN_STAGED_CHUNK_BYTES",
                               "expected a byte count of at least 4096, got '" + v + "'");
    return std::stoull(v) / 4096 * 4096;
  }
  // 128 KiB: a chunk's inputs and the peers' blocks stay in L2 (64 KiB
  // chunks were level, 1-4 MiB chunks 20-40 % slower from 1 MiB).
  return std::size_t{128} << 10;
}

bool use_staged_allreduce(Communicator& c, std::size_t bytes) {
  return c.transport() == TransportKind::kShm && c.size() >= kStagedMinRanks &&
         bytes >= kStagedMinBytes;
}

void staged_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                      const Options& o) {
  const int n = c.size(), r = c.rank();
  const auto un = static_cast<std::size_t>(n), ur = static_cast<std::size_t>(r);
  const std::size_t esz = op::dtype_size(o.dtype), bytes = count * esz;
  // Chunk: whole elements, and a multiple of 64 bytes per block.
  const std::size_t chunk_elems =
      std::max<std::size_t>(staged_chunk_bytes() / esz / (16 * un) * (16 * un), 16 * un);
  // [inputs | reduced blocks], sized for the widest dtype (8 bytes) so every
  // call fits the area the first one allocated.
  const std::size_t half = 2 * std::max(staged_chunk_bytes(), 16 * un * 8);
  std::byte* mine = c.staging(2 * half);
  if (!mine) throw std::logic_error("allreduce (staged) needs the shm transport");

  const auto fault = testing::active_fault(c);
  const op::ReduceOp rop = testing::reduce_op_under(fault, o.op);
  const bool stale = fault == testing::Fault::kStaleBuffer;
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  // The peer block a rank copies last gets the dropped-slice and
  // off-by-one faults.
  const std::size_t faulty = (ur + un - 1) % un;

  for (std::size_t lo = 0; lo < count; lo += chunk_elems) {
    const std::size_t len = std::min(chunk_elems, count - lo), coff = lo * esz;
    const std::uint64_t seq = ++c.staged_chunks();
    const std::size_t h = (seq & 1) * half;
    const std::size_t per = block_elems(len, un, esz);
    auto block = [&](std::size_t b, std::size_t& off, std::size_t& l) {
      const std::size_t e = std::min(len, per * b);
      off = e * esz;
      l = std::min(len, e + per) - e;
    };
    // 1. Our chunk into our staging area.
    if (!stale) op::copy_bytes(mine + h, in + coff, len * esz);
    meet(c, seq, o);
    // 3. Block r of every rank's chunk, reduced into our output, then into
    // our staging area's result half for the others.
    std::size_t off, l;
    block(ur, off, l);
    if (!stale && l) {
      std::byte* dst = out + coff + off;
      const std::byte* first = c.peer_staging(0) + h + off;
      if (n == 1) {
        op::copy_bytes(dst, first, l * esz);
      } else {
        op::reduce_to(o.dtype, rop, dst, first, c.peer_staging(1) + h + off, l);
        for (int q = 2; q < n; ++q)
          op::reduce_into(o.dtype, rop, dst, c.peer_staging(q) + h + off, l);
      }
      if (o.op == op::ReduceOp::kAvg) op::finalize_avg(o.dtype, dst, l, n);
      op::copy_bytes(mine + h + half / 2 + off, dst, l * esz);
    }
    meet(c, seq, o);
    // 5. Every other rank's reduced block, from its staging area.
    for (std::size_t k = 1; k < un && !stale; ++k) {
      const std::size_t q = (ur + k) % un;
      block(q, off, l);
      if (!l) continue;
      const std::byte* src = c.peer_staging(static_cast<int>(q)) + h + half / 2 + off;
      std::byte* dst = out + coff + off;
      if (q == faulty && fault == testing::Fault::kDroppedSlice) continue;
      if (q == faulty && fault == testing::Fault::kOffByOneChunk) {
        // The block lands one element late: its first element keeps what
        // the buffer held, its last is lost.
        if (l > 1) std::memmove(dst + esz, src, (l - 1) * esz);
        continue;
      }
      op::copy_bytes(dst, src, l * esz);
    }
  }
  if (fault == testing::Fault::kZeroedOutput) std::memset(out, 0, bytes);
}

}  // namespace hn::stack::comm
