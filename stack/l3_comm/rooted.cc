// allgather (ring), broadcast and reduce (binomial tree for small messages,
// pipelined chain for large ones).
#include <cstring>

#include "stack/l3_comm/blocks.h"
#include "stack/l3_comm/collectives.h"
#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm {

namespace {

std::byte* B(void* p) {
  return static_cast<std::byte*>(p);
}
const std::byte* B(const void* p) {
  return static_cast<const std::byte*>(p);
}

void check_root(const Communicator& c, const Options& o) {
  if (o.root < 0 || o.root >= c.size())
    throw std::invalid_argument("root " + std::to_string(o.root) + " is not a rank of a world of " +
                                std::to_string(c.size()));
}

bool use_tree(const Communicator& c, const Options& o, std::size_t bytes) {
  if (o.algorithm == Algorithm::kRecursiveDoubling) return true;
  if (o.algorithm == Algorithm::kRing) return false;
  return bytes < latency_crossover_bytes(c);
}

}  // namespace

void allgather(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o) {
  const int n = c.size(), r = c.rank(), right = mod(r + 1, n), left = mod(r - 1, n);
  const std::size_t bb = count * op::dtype_size(o.dtype);
  if (B(send) != B(recv) + r * bb && bb) op::copy_bytes(B(recv) + r * bb, send, bb);
  if (n == 1 || bb == 0) {
    c.check_abort("allgather");
    return;
  }
  Schedule& s = c.schedule(o.dtype);
  int prev = -1;
  for (int k = 0; k < n - 1; ++k) {
    int sb = mod(r - k, n), rb = mod(r - k - 1, n);
    s.send_gated(right, B(recv) + sb * bb, bb, prev);
    prev = s.recv(left, B(recv) + rb * bb, bb);
  }
  c.run(s, "allgather (ring)", o.timeout);
}

void broadcast(Communicator& c, void* buf, std::size_t count, const Options& o) {
  check_root(c, o);
  const int n = c.size(), v = mod(c.rank() - o.root, n);
  const std::size_t bytes = count * op::dtype_size(o.dtype);
  if (n == 1 || bytes == 0) {
    c.check_abort("broadcast");
    return;
  }
  auto real = [&](int vr) { return mod(vr + o.root, n); };
  Schedule& s = c.schedule(o.dtype);
  if (use_tree(c, o, bytes)) {
    int mask = 1, gate = -1;
    for (; mask < n; mask <<= 1)
      if (v & mask) {
        gate = s.recv(real(v - mask), buf, bytes);
        break;
      }
    for (mask >>= 1; mask > 0; mask >>= 1)
      if (v + mask < n) s.send_gated(real(v + mask), buf, bytes, gate);
    c.run(s, "broadcast (binomial tree)", o.timeout);
  } else {
    int gate = -1;
    if (v > 0) gate = s.recv(real(v - 1), buf, bytes);
    if (v < n - 1) s.send_gated(real(v + 1), buf, bytes, gate);
    c.run(s, "broadcast (chain)", o.timeout);
  }
}

void reduce(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o) {
  check_root(c, o);
  const int n = c.size(), v = mod(c.rank() - o.root, n);
  const std::size_t bytes = count * op::dtype_size(o.dtype);
  if (n == 1 || bytes == 0) {
    if (v == 0 && recv != send && bytes) op::copy_bytes(recv, send, bytes);
    c.check_abort("reduce");
    return;
  }
  auto real = [&](int vr) { return mod(vr + o.root, n); };
  Schedule& s = c.schedule(o.dtype, o.op);
  const bool avg = o.op == op::ReduceOp::kAvg;
  if (use_tree(c, o, bytes)) {
    // Children reduce concurrently into one accumulator seeded with our data;
    // the send to the parent waits for all of them.
    std::byte* acc = v == 0 ? B(recv) : c.scratch(0, bytes);
    if (acc != B(send)) op::copy_bytes(acc, send, bytes);
    std::vector<int> kids;
    int mask = 1, parent = -1;
    for (; mask < n; mask <<= 1) {
      if (v & mask) {
        parent = v - mask;
        break;
      }
      if (v + mask < n) kids.push_back(s.recv_reduce(real(v + mask), acc, acc, bytes));
    }
    if (parent >= 0) s.send(real(parent), acc, bytes, kids);
    c.run(s, "reduce (binomial tree)", o.timeout);
    if (v == 0 && avg) op::finalize_avg(o.dtype, recv, count, n);
    return;
  }
  // Chain n-1 -> ... -> 1 -> 0 (the root), pipelined by the send gates.
  if (v == n - 1) {
    s.send(real(v - 1), send, bytes);
  } else {
    std::byte* acc = v == 0 ? B(recv) : c.scratch(0, bytes);
    int rx = s.recv_reduce(real(v + 1), acc, send, bytes, v == 0 && avg);
    if (v > 0) s.send_gated(real(v - 1), acc, bytes, rx);
  }
  c.run(s, "reduce (chain)", o.timeout);
}

}  // namespace hn::stack::comm
