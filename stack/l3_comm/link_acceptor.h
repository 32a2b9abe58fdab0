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
//
// `until` lets a caller end the wait short of every expected rank: certify's
// link mesh (drivers/cluster/link_mesh.h) stops waiting for a peer that has
// published that it tried and failed (given_up, asked between polls at most
// every `recheck`), and takes what connected by the deadline as the outcome
// (partial: no TimeoutError; a connection from one of the job's ranks that is
// not expected or does not match is turned away and logged, not thrown,
// because in the mesh every link is an outcome and none fails the run).

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "stack/l3_comm/handshake_queue.h"

namespace hn::stack::comm {

struct AcceptUntil {
  std::function<std::set<int>(const std::set<int>& waiting)> given_up;
  std::chrono::milliseconds recheck{200};
  bool partial = false;
};

std::map<int, Fd> accept_peer_links(int listen_fd, const Credentials& creds, int my_rank,
                                    std::set<int> expected, Deadline deadline,
                                    std::chrono::milliseconds handshake_timeout, RejectionLog& log,
                                    ErrorContext ctx, const std::string& channel = "peer",
                                    const AcceptUntil& until = {});

}  // namespace hn::stack::comm
