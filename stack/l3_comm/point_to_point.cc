// alltoall(v), send/recv, sendrecv and barrier.
#include <cstring>
#include <stdexcept>

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

void check_peer(const Communicator& c, int peer, const char* what) {
  if (peer < 0 || peer >= c.size() || peer == c.rank())
    throw std::invalid_argument(std::string(what) + ": peer " + std::to_string(peer) +
                                " is not another rank of " + std::to_string(c.size()));
}

}  // namespace

void alltoallv(Communicator& c, const void* send, const std::vector<std::size_t>& send_counts,
               const std::vector<std::size_t>& send_displs, void* recv,
               const std::vector<std::size_t>& recv_counts,
               const std::vector<std::size_t>& recv_displs, const Options& o) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = op::dtype_size(o.dtype);
  const auto un = static_cast<std::size_t>(n);
  if (send_counts.size() != un || send_displs.size() != un || recv_counts.size() != un ||
      recv_displs.size() != un)
    throw std::invalid_argument("alltoallv: counts and displacements need one entry per rank");
  if (send_counts[r] != recv_counts[r])
    throw std::invalid_argument("alltoallv: this rank sends itself " +
                                std::to_string(send_counts[r]) + " elements but expects " +
                                std::to_string(recv_counts[r]));
  if (send_counts[r])
    op::copy_bytes(B(recv) + recv_displs[r] * esz, B(send) + send_displs[r] * esz,
                   send_counts[r] * esz);
  Schedule& s = c.schedule(o.dtype);
  // Start with the next rank so that not everyone talks to rank 0 first.
  for (int k = 1; k < n; ++k) {
    int to = mod(r + k, n), from = mod(r - k, n);
    s.send(to, B(send) + send_displs[to] * esz, send_counts[to] * esz);
    s.recv(from, B(recv) + recv_displs[from] * esz, recv_counts[from] * esz);
  }
  c.run(s, "alltoall", o.timeout);
}

void alltoall(Communicator& c, const void* send, void* recv, std::size_t count, const Options& o) {
  const auto n = static_cast<std::size_t>(c.size());
  if (send == recv && count && n > 1)
    throw std::invalid_argument("alltoall: send and recv must not overlap");
  std::vector<std::size_t> counts(n, count), displs(n);
  for (std::size_t i = 0; i < n; ++i) displs[i] = i * count;
  alltoallv(c, send, counts, displs, recv, counts, displs, o);
}

void send(Communicator& c, const void* buf, std::size_t count, int peer, const Options& o) {
  check_peer(c, peer, "send");
  Schedule& s = c.schedule();
  s.send(peer, buf, count * op::dtype_size(o.dtype));
  c.run(s, "send", o.timeout);
}

void recv(Communicator& c, void* buf, std::size_t count, int peer, const Options& o) {
  check_peer(c, peer, "recv");
  Schedule& s = c.schedule();
  s.recv(peer, buf, count * op::dtype_size(o.dtype));
  c.run(s, "recv", o.timeout);
}

void sendrecv(Communicator& c, const void* send_buf, int to, void* recv_buf, int from,
              std::size_t count, const Options& o) {
  check_peer(c, to, "sendrecv");
  check_peer(c, from, "sendrecv");
  const std::size_t bytes = count * op::dtype_size(o.dtype);
  Schedule& s = c.schedule();
  s.send(to, send_buf, bytes);
  s.recv(from, recv_buf, bytes);
  c.run(s, "sendrecv", o.timeout);
}

void barrier(Communicator& c, const Options& o) {
  const int n = c.size(), r = c.rank();
  if (n == 1) {
    c.check_abort("barrier");
    return;
  }
  int rounds = 0;
  while ((1 << rounds) < n) ++rounds;
  // Two passes of the dissemination: the first tells every rank that all
  // have arrived; the second, that all are running again. A rank that slept
  // through the first pass (its CPU shared with another process) has woken
  // by the time anyone leaves the second, so the ranks leave together and
  // the work after the barrier does not wait out a peer's wake-up.
  std::byte* tokens = c.scratch(3, 4 * rounds);
  Schedule& s = c.schedule();
  int prev = -1;
  for (int k = 0; k < 2 * rounds; ++k) {
    int d = 1 << (k % rounds);
    s.send_gated(mod(r + d, n), &tokens[2 * k], 1, prev);
    prev = s.recv(mod(r - d, n), &tokens[2 * k + 1], 1);
  }
  c.run(s, "barrier", o.timeout);
}

}  // namespace hn::stack::comm
