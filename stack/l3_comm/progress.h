#pragma once
// The engine that runs every collective. A collective is a Schedule: a list
// of transfers (send or receive of one buffer region to/from one peer). All
// transfers of a schedule progress together, so a ring rank sends to its
// right while it receives from its left, and a send may be gated on receives:
// it only sends bytes that those receives have already delivered (and
// reduced). That makes every multi-step algorithm pipelined at the transport's
// piece size without a separate chunk loop: step k+1 forwards the first bytes
// of step k while step k's later bytes are still arriving.
//
// `after` orders whole transfers (a receive that overwrites a buffer an
// earlier send still reads). Transfers to the same peer in the same direction run in schedule order
// (they share one byte stream). A receive either copies, or reduces the
// incoming elements into dst (dst = accum op incoming) through stack/l4_operator,
// optionally finishing an average. Partial elements are carried over.
//
// run_schedule() returns when every transfer is done. It throws
// TimeoutError when `timeout` passes without it, naming the peers still
// pending (the timeout runs from the first time the schedule has to wait, so
// a collective whose peers keep up never reads the clock),
// PeerDiedError naming the dead rank when the abort state is set (the
// watch channel reported a death) or a link breaks.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/transport.h"
#include "stack/l4_operator/dtype.h"

namespace hn::stack::comm {

struct Transfer {
  int peer = -1;
  bool send = false;
  bool reduce = false;      // recv: dst = accum (op) incoming
  bool finish_avg = false;  // recv reduce: divide by Schedule::avg_divisor afterwards
  // Through the pair's mailbox, as one message (Pair::mail_bytes()), not the
  // byte stream: both ends must mark the same transfers. Ungated.
  bool mail = false;
  std::byte* buf = nullptr;  // send: source; recv: destination
  std::size_t bytes = 0;
  const std::byte* accum = nullptr;  // recv reduce: the other operand (may equal buf)
  // Dependencies, as ranges of Schedule::deps:
  //   gates  (send): recv transfers whose delivered bytes bound what we send
  //   after  (any):  transfers that must be complete before this one starts
  std::uint32_t gate_first = 0, gate_count = 0, after_first = 0, after_count = 0;
  // Progress (engine-owned).
  std::size_t done = 0;   // bytes moved on the wire
  std::size_t ready = 0;  // recv: bytes final in buf (whole elements)
};

// A schedule is reused between calls (clear() keeps its capacity), so a
// small collective allocates nothing once warm.
struct Schedule {
  op::DType dtype = op::DType::kF32;
  op::ReduceOp op = op::ReduceOp::kSum;
  int avg_divisor = 1;
  std::vector<Transfer> transfers;
  std::vector<int> deps;

  void clear(op::DType t = op::DType::kF32, op::ReduceOp o = op::ReduceOp::kSum, int divisor = 1);
  int send(int peer, const void* buf, std::size_t bytes, std::initializer_list<int> gates = {});
  int send(int peer, const void* buf, std::size_t bytes, const std::vector<int>& gates);
  // gate < 0: not gated.
  int send_gated(int peer, const void* buf, std::size_t bytes, int gate) {
    return gate < 0 ? send(peer, buf, bytes) : send(peer, buf, bytes, {gate});
  }
  int recv(int peer, void* buf, std::size_t bytes);
  int recv_reduce(int peer, void* dst, const void* accum, std::size_t bytes,
                  bool finish_avg = false);
  void set_after(int transfer, std::initializer_list<int> deps_list);

  // Engine scratch, kept for reuse.
  struct Queue {
    int peer;
    bool send;
    std::uint32_t first, count, head;  // range of `order`
  };
  std::vector<Queue> queues;
  std::vector<int> order;
  std::vector<std::uint8_t> carry;  // 8 bytes + length per transfer
  std::vector<Pair*> wait_send, wait_recv;
};

// Set once, by the watcher thread, when the job is known to be broken.
class AbortState {
 public:
  void set(int dead_rank, const std::string& reason);
  bool is_set() const { return flag_.load(std::memory_order_acquire); }
  int dead_rank() const;
  std::string reason() const;

 private:
  std::atomic<bool> flag_{false};
  mutable std::mutex mu_;
  int dead_rank_ = -1;
  std::string reason_;
};

// ctx names the local rank, plane and operation; peer fields are filled in.
void run_schedule(Device& device, Schedule& s, std::chrono::milliseconds timeout,
                  const AbortState& abort, const ErrorContext& ctx);

// Throws the PeerDiedError/AuthError that abort describes.
[[noreturn]] void throw_aborted(const AbortState& abort, ErrorContext ctx);

}  // namespace hn::stack::comm
