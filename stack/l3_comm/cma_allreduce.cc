#include "stack/l3_comm/cma_allreduce.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "stack/l3_comm/direct_allreduce.h"
#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/fault_injection.h"
#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

namespace {

using op::ReduceOp;

// Where one rank's buffers are, in its own address space.
struct Where {
  std::uint64_t send, recv;
};

// Bytes per copy: each piece is one system call per peer each way, and a
// piece and its reduced result stay in L2 between the copies.
constexpr std::size_t kPieceBytes = 128u << 10;

// Copies `len` bytes between our `local` and `remote` in rank q's memory;
// a short or refused copy is the peer gone or its memory no longer ours
// to reach: say which.
void copy_remote(Communicator& c, int q, int pid, void* local, std::uint64_t remote,
                 std::size_t len, bool write) {
  std::size_t done = 0;
  while (done < len) {
    iovec l{static_cast<std::byte*>(local) + done, len - done};
    iovec r{reinterpret_cast<void*>(remote + done), len - done};
    const ssize_t got =
        write ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (got <= 0) {
      const int e = got < 0 ? errno : EFAULT;
      c.check_abort("allreduce (single copy)");
      ErrorContext ctx;
      ctx.local_rank = c.rank();
      ctx.peer_rank = q;
      ctx.peer_address = "shm pid " + std::to_string(pid);
      ctx.plane = "shm";
      ctx.operation = "allreduce (single copy)";
      throw LinkError(LinkError::Kind::kPeerClosed,
                      std::string(write ? "writing to" : "reading from") + " rank " +
                          std::to_string(q) + "'s buffer: " + std::strerror(e),
                      ctx);
    }
    done += static_cast<std::size_t>(got);
  }
}

}  // namespace

bool cma_available(const Communicator& c) {
  return c.transport() == TransportKind::kShm && c.size() > 1 && c.device() &&
         c.device()->single_copy_pid((c.rank() + 1) % c.size()) > 0;
}

std::size_t cma_min_bytes(int ranks) {
  // Measured (bench/README.md "Tuning", Dec 4; fresh inputs, private
  // buffers, 2 runs of 20 calls, us per call): 2 ranks 16 KiB ring/rd 4.5-4.7
  // against 5.0-5.2 here, 64 KiB 14-16 against 12; 4 ranks on 2 CPUs
  // 64 KiB staged 29 against 36-38 here, 256 KiB 121-245 against 111-119.
  return ranks == 2 ? std::size_t{64} << 10 : std::size_t{256} << 10;
}

bool use_cma_allreduce(const Communicator& c, std::size_t bytes) {
  return bytes >= cma_min_bytes(c.size()) && cma_available(c);
}

void cma_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                   const Options& o) {
  const int n = c.size(), r = c.rank();
  const auto un = static_cast<std::size_t>(n), ur = static_cast<std::size_t>(r);
  const std::size_t esz = op::dtype_size(o.dtype), bytes = count * esz;
  // (1) Where everyone's buffers are.
  auto* all = reinterpret_cast<Where*>(c.scratch(2, un * sizeof(Where)));
  const Where mine{reinterpret_cast<std::uint64_t>(send), reinterpret_cast<std::uint64_t>(recv)};
  all[ur] = mine;
  exchange_all(c, &mine, all, sizeof(Where), o, "allreduce (single copy)");

  const auto fault = testing::active_fault(c);
  const ReduceOp rop = testing::reduce_op_under(fault, o.op);
  const bool stale = fault == testing::Fault::kStaleBuffer;
  const std::size_t per = block_elems(count, un, esz);
  const std::size_t lo_e = std::min(count, per * ur);
  const std::size_t off = lo_e * esz, len = std::min(count, lo_e + per) - lo_e;
  const std::size_t piece = std::max<std::size_t>(1, kPieceBytes / esz);
  // One scratch piece per peer: every peer's piece is read before the reduction.
  std::byte* tmp = c.scratch(3, (un - 1) * piece * esz);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const std::size_t faulty = (ur + 1) % un;

  // (2) Block r, piece by piece: every peer's piece of it in, reduced with
  // ours (in place, our input is the accumulator), and out to every peer.
  for (std::size_t e = 0; e < len && !stale; e += piece) {
    const std::size_t po = off + e * esz, pl = std::min(piece, len - e), pb = pl * esz;
    std::size_t slot = 0;
    for (std::size_t k = 1; k < un; ++k, ++slot) {
      const int q = static_cast<int>((ur + k) % un);
      copy_remote(c, q, c.device()->single_copy_pid(q), tmp + slot * piece * esz,
                  all[static_cast<std::size_t>(q)].send + po, pb, false);
    }
    op::reduce_to(o.dtype, rop, out + po, in + po, tmp, pl);
    for (std::size_t k = 1; k + 1 < un; ++k)
      op::reduce_into(o.dtype, rop, out + po, tmp + k * piece * esz, pl);
    if (o.op == ReduceOp::kAvg) op::finalize_avg(o.dtype, out + po, pl, n);
    for (std::size_t k = 1; k < un; ++k) {
      const std::size_t q = (ur + k) % un;
      if (q == faulty && fault == testing::Fault::kDroppedSlice) continue;
      std::uint64_t dst = all[q].recv + po;
      std::size_t wb = pb;
      const std::byte* src = out + po;
      // Off by one: the block lands one element late (its first element
      // keeps what the buffer held, its last is lost).
      if (q == faulty && fault == testing::Fault::kOffByOneChunk) {
        dst += esz;
        if (e + pl >= len) wb -= esz;
      }
      if (wb)
        copy_remote(c, static_cast<int>(q), c.device()->single_copy_pid(static_cast<int>(q)),
                    const_cast<std::byte*>(src), dst, wb, true);
    }
  }
  // (3) "Your block is in place": from every peer, so our output is complete
  // and nobody reads our input any more.
  const std::uint64_t token = 1;
  auto* tokens = reinterpret_cast<std::uint64_t*>(c.scratch(2, un * sizeof(std::uint64_t)));
  exchange_all(c, &token, tokens, sizeof token, o, "allreduce (single copy)");
  if (fault == testing::Fault::kZeroedOutput) std::memset(out, 0, bytes);
  c.count_cma_call();
}

}  // namespace hn::stack::comm
