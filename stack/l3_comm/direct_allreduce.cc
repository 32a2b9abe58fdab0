#include "stack/l3_comm/direct_allreduce.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "stack/l3_comm/fault_injection.h"
#include "stack/l3_comm/flat_allreduce.h"
#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

namespace {

using op::ReduceOp;

// Where one rank's buffers are: window ids and offsets (kNone: not in a window).
struct Where {
  std::uint64_t send_id, send_off, recv_id, recv_off;
};
constexpr std::uint64_t kNone = ~std::uint64_t{0};

}  // namespace

void exchange_all(Communicator& c, const void* mine, void* theirs, std::size_t bytes,
                  const Options& o, const char* operation) {
  testing::FaultPause pause(c);
  Schedule& s = c.schedule(o.dtype, o.op);
  const int n = c.size(), r = c.rank();
  const bool mail = bytes <= mail_limit(c);
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    s.transfers[s.send(to, mine, bytes)].mail = mail;
    s
        .transfers[s.recv(
            from, static_cast<std::byte*>(theirs) + static_cast<std::size_t>(from) * bytes, bytes)]
        .mail = mail;
  }
  c.run(s, operation, o.timeout);
}

namespace {

void exchange(Communicator& c, const void* mine, void* theirs, std::size_t bytes,
              const Options& o) {
  exchange_all(c, mine, theirs, bytes, o, "allreduce (direct)");
}

// A reduced piece is written to the peers' outputs while it is still in L1/L2.
constexpr std::size_t kPushPieceBytes = 32u << 10;

}  // namespace

std::size_t block_elems(std::size_t count, std::size_t ranks, std::size_t esz) {
  const std::size_t align = std::max<std::size_t>(1, 64 / esz);
  return ((count + ranks - 1) / ranks + align - 1) / align * align;
}

void reduce_all_inputs(const Options& o, testing::Fault fault, int n, int rank,
                       const std::byte* const* in, std::byte* out, std::size_t count) {
  const std::size_t un = static_cast<std::size_t>(n), esz = op::dtype_size(o.dtype);
  if (fault == testing::Fault::kStaleBuffer) return;
  const ReduceOp rop = testing::reduce_op_under(fault, o.op);
  // The block a "dropped slice" or "off by one" fault breaks: the one the
  // direct path breaks for this rank (see try_direct_allreduce).
  const std::size_t last = (static_cast<std::size_t>(rank) + un - 1) % un;
  const std::size_t per = block_elems(count, un, esz);
  for (std::size_t b = 0; b < un; ++b) {
    const std::size_t lo = std::min(count, per * b), off = lo * esz;
    std::size_t len = std::min(count, lo + per) - lo;
    if (!len || (b == last && fault == testing::Fault::kDroppedSlice)) continue;
    std::byte* dst = out + off;
    if (b == last && fault == testing::Fault::kOffByOneChunk) dst += esz, --len;
    if (n == 1) {
      std::memmove(dst, in[0] + off, len * esz);
      continue;
    }
    op::reduce_to(o.dtype, rop, dst, in[0] + off, in[1] + off, len);
    for (std::size_t q = 2; q < un; ++q) op::reduce_into(o.dtype, rop, dst, in[q] + off, len);
    if (o.op == ReduceOp::kAvg) op::finalize_avg(o.dtype, dst, len, n);
  }
  if (fault == testing::Fault::kZeroedOutput) std::memset(out, 0, count * esz);
}

std::size_t direct_min_bytes(int ranks) {
  return ranks == 2 ? std::size_t{4} << 10 : 64u << 10;
}

bool try_direct_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                          const Options& o) {
  const shm::WindowTable* w = c.windows();
  const int n = c.size(), r = c.rank();
  const auto un = static_cast<std::size_t>(n), ur = static_cast<std::size_t>(r);
  const std::size_t esz = op::dtype_size(o.dtype), bytes = count * esz;
  Where mine{kNone, 0, kNone, 0};
  if (w) {
    auto s = w->find(send, bytes), d = w->find(recv, bytes);
    if (s && d) mine = {s->id, s->offset, d->id, d->offset};
  }
  // (1) Where everyone's buffers are. Every rank looks at the same table, so
  // every rank returns the same.
  auto* all = reinterpret_cast<Where*>(c.scratch(2, un * sizeof(Where)));
  all[ur] = mine;
  exchange(c, &mine, all, sizeof(Where), o);
  // in[q]: rank q's input; outs[q]: its output (written by the push below).
  std::byte* ptrs = c.scratch(3, 2 * un * sizeof(void*));
  auto** in = reinterpret_cast<const std::byte**>(ptrs);
  auto** outs = reinterpret_cast<std::byte**>(ptrs + un * sizeof(void*));
  for (std::size_t q = 0; q < un; ++q) {
    const Where& e = all[q];
    if (e.send_id == kNone) return false;
    if (q == ur) {
      in[q] = static_cast<const std::byte*>(send);
      outs[q] = static_cast<std::byte*>(recv);
      continue;
    }
    const std::byte* sb = w->peer_base(e.send_id, static_cast<int>(q));
    std::byte* rb = w->peer_base(e.recv_id, static_cast<int>(q));
    // A peer's window this rank has released (or never mapped): the program
    // broke alloc_window's contract, and falling back here alone would leave
    // the others waiting, so say so at once.
    if (!sb || !rb)
      throw std::logic_error("allreduce: rank " + std::to_string(q) +
                             " passed a window this rank has released; every rank must free a "
                             "window before any rank uses it again");
    in[q] = sb + e.send_off;
    outs[q] = rb + e.recv_off;
  }

  const auto fault = testing::active_fault(c);
  const ReduceOp rop = testing::reduce_op_under(fault, o.op);
  const bool stale = fault == testing::Fault::kStaleBuffer;
  const std::size_t per = block_elems(count, un, esz);
  auto block = [&](std::size_t b, std::size_t& off, std::size_t& len) {
    const std::size_t lo = std::min(count, per * b);
    off = lo * esz;
    len = std::min(count, lo + per) - lo;
  };
  auto* out = static_cast<std::byte*>(recv);

  // (2) Reduce block r, piece by piece (our own input first: in place it is
  // the accumulator, then every other rank's in rank order), and write each
  // piece into every rank's output while it is still in our cache. Only
  // rank r reads block r of any input and only rank r writes block r of
  // any output, so in place is safe: a piece of a peer's buffer is read
  // before it is overwritten, by the same rank. The peer whose last block
  // this is gets the "dropped slice" and "off by one" faults.
  std::size_t off, len;
  block(ur, off, len);
  const std::size_t piece = std::max<std::size_t>(1, kPushPieceBytes / esz);
  const std::size_t faulty = (ur + 1) % un;
  for (std::size_t lo = 0; lo < len && !stale; lo += piece) {
    const std::size_t po = off + lo * esz, pl = std::min(piece, len - lo);
    bool first = true;
    for (std::size_t q = 0; q < un; ++q) {
      if (q == ur) continue;
      if (first)
        op::reduce_to(o.dtype, rop, out + po, in[ur] + po, in[q] + po, pl);
      else
        op::reduce_into(o.dtype, rop, out + po, in[q] + po, pl);
      first = false;
    }
    if (o.op == ReduceOp::kAvg) op::finalize_avg(o.dtype, out + po, pl, n);
    for (std::size_t k = 1; k < un; ++k) {
      const std::size_t q = (ur + k) % un;
      std::byte* dst = outs[q] + po;
      if (q == faulty && fault == testing::Fault::kDroppedSlice) continue;
      if (q == faulty && fault == testing::Fault::kOffByOneChunk) {
        // The whole block lands one element late: its first element keeps
        // what the buffer held, its last is lost.
        if (pl > 1 || lo + pl < len)
          std::memmove(dst + esz, out + po, (lo + pl < len ? pl : pl - 1) * esz);
        continue;
      }
      op::copy_bytes(dst, out + po, pl * esz);
    }
  }
  // (3) "Your block is in place": when every peer has said so, every peer has
  // also finished reading our input, so we may return.
  const std::uint64_t token = 1;
  auto* tokens = reinterpret_cast<std::uint64_t*>(c.scratch(2, un * sizeof(std::uint64_t)));
  exchange(c, &token, tokens, sizeof token, o);
  if (fault == testing::Fault::kZeroedOutput) std::memset(out, 0, bytes);
  c.count_direct_call();
  return true;
}

}  // namespace hn::stack::comm
