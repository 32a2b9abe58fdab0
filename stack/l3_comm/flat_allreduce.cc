#include "stack/l3_comm/flat_allreduce.h"

#include <cstring>

#include "stack/l3_comm/direct_allreduce.h"
#include "stack/l3_comm/fault_injection.h"

namespace hn::stack::comm {

std::size_t mail_limit(Communicator& c) {
  return c.device() && c.size() > 1 ? c.device()->pair((c.rank() + 1) % c.size()).mail_bytes() : 0;
}

bool use_flat_allreduce(Communicator& c, std::size_t bytes) {
  if (c.transport() != TransportKind::kShm || c.size() < 2 || c.size() > 8) return false;
  return bytes <= (c.size() == 2 ? mail_limit(c) : std::size_t{4} << 10);
}

void flat_allreduce(Communicator& c, const void* send, void* recv, std::size_t count,
                    const Options& o) {
  const int n = c.size(), r = c.rank();
  const std::size_t bytes = count * op::dtype_size(o.dtype), un = static_cast<std::size_t>(n);
  auto* all = c.scratch(2, un * bytes);
  auto** in = reinterpret_cast<const std::byte**>(c.scratch(3, un * sizeof(void*)));
  // Our own input is copied too: in place, the reduction overwrites it.
  std::memcpy(all + static_cast<std::size_t>(r) * bytes, send, bytes);
  for (std::size_t q = 0; q < un; ++q) in[q] = all + q * bytes;
  const auto fault = testing::active_fault(c);
  {
    testing::FaultPause pause(c);
    Schedule& s = c.schedule(o.dtype, o.op);
    // Every rank's pairs are shm pairs with the same mailbox, so every rank
    // marks the same transfers.
    const bool mail = bytes <= mail_limit(c);
    for (int k = 1; k < n; ++k) {
      const int to = (r + k) % n, from = (r - k + n) % n;
      s.transfers[s.send(to, all + static_cast<std::size_t>(r) * bytes, bytes)].mail = mail;
      s.transfers[s.recv(from, all + static_cast<std::size_t>(from) * bytes, bytes)].mail = mail;
    }
    c.run(s, "allreduce (flat)", o.timeout);
  }
  reduce_all_inputs(o, fault, n, r, in, static_cast<std::byte*>(recv), count);
}

}  // namespace hn::stack::comm
