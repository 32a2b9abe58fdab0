#pragma once
// The accept side of the TCP peer links: a rank listens on its plane address
// (which anyone on that network can reach) and waits for every higher rank
// to connect. Connections are authenticated concurrently in a bounded
// HandshakeQueue (handshake_queue.h), so an outsider that connects first, or
// holds connections open, or sends garbage, is refused and recorded in `log`
// with its address, and the job's own ranks still get through. Only the
// job's own ranks can fail link setup here: one that proves the token and
// the job id but is not an expected rank (a lower rank, a duplicate, another
// world size) throws AuthError.
//
// Returns one authenticated, blocking socket per expected rank. Throws
// TimeoutError at the deadline naming the ranks still missing and what was
// refused, LinkError when the listener fails.

#include <chrono>
#include <map>
#include <set>

#include "stack/l3_comm/handshake_queue.h"

namespace hn::stack::comm {

std::map<int, Fd> accept_peer_links(int listen_fd, const Credentials& creds, int my_rank,
                                    std::set<int> expected, Deadline deadline,
                                    std::chrono::milliseconds handshake_timeout, RejectionLog& log,
                                    ErrorContext ctx);

}  // namespace hn::stack::comm
