#pragma once
// Mutual authentication of one connection (store or peer link) with the job
// token, by HMAC-SHA256 challenge-response; the token never crosses the wire.
//
//   both sides send   hello = magic "HNPRECK1", world, rank, channel, job id, 32-byte nonce
//   both check        magic (else: not an hnprecheck rank), job id, world, channel
//   both send         HMAC(token, label | own nonce | peer nonce | job | world | ranks | channel)
//   both verify the peer's MAC, send a verdict byte, and read the peer's verdict
//
// So a stranger, a wrong token, or a rank of another job (two jobs on one
// port) fails on BOTH sides with an AuthError that says which check failed.
// Nonces both ways prevent replaying an old exchange. Bounded by deadline
// (TimeoutError: a peer that connects and stays silent).

#include <string>
#include <string_view>

#include "stack/l3_comm/socket.h"

namespace hn::stack::comm {

struct Credentials {
  std::string token;   // shared secret of the job (HN_TOKEN / --token-file)
  std::string job_id;  // must match on every rank
  int world = 1;       // must match on every rank
};

struct PeerHello {
  int rank = -1;
  std::string channel;
};

// channel: "store", "watch", "peer" ... must match on both sides.
// expected_peer: the rank we meant to reach, or -1 to accept any rank in
// [0, world). Returns what the peer said about itself once verified.
PeerHello authenticate(int fd, const Credentials& creds, std::string_view channel, int my_rank,
                       int expected_peer, Deadline deadline, ErrorContext ctx);

}  // namespace hn::stack::comm
