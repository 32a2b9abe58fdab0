#pragma once
// Mutual authentication of one connection (store or peer link) with the job
// token, by HMAC-SHA256 challenge-response; the token never crosses the wire.
// The side that connects proves knowledge of the token first, so the side
// that listens (rank 0's rendezvous, every peer-link listener, reachable by
// anyone on the network) reveals nothing to a stranger: no MAC to test token
// guesses against offline, no job id, no world size.
//
//   acceptor  -> connector  "HNPRECK2", Na (32 random bytes)
//   connector -> acceptor   "HNPRECK2", Nc, rank, channel,
//                           MACc = HMAC(token, v2|connector|Na|Nc|rank|channel)
//   acceptor checks MACc.   Wrong: one byte 0 (refused), close. Nothing else.
//   acceptor -> connector   1, MACa = HMAC(token, v2|acceptor|Na|Nc|rank|channel|
//                           own rank|world|job id), own rank, world, job id
//   connector checks MACa, then the job id, world and rank it expected
//   connector -> acceptor   verdict (1 ok, else why not), its job id and world
//
// A fresh Na per connection makes a recorded exchange useless (replay), the
// direction labels make a MAC of one side useless as the other's (reflection).
// Job id and world are sent only after the other side proved the token, and
// each side checks them itself, so two jobs sharing a token still fail with
// "job id mismatch". What this does not protect (docs/security.md): the
// traffic after the handshake (no encryption or integrity: an on-path
// attacker can read or hijack it), and a weak token (token_problem()).
//
// Bounded by deadlines everywhere: a silent peer is a TimeoutError.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// Why a job token is too weak to protect a rendezvous that anyone on the
// network can reach, or "" when it is fine. The rule, a check against
// mistakes rather than a strength meter: at least kMinTokenChars characters,
// at least kMinTokenDistinct of them distinct (`openssl rand -hex 32` gives
// 64 characters and about 16 distinct ones; `hunter2` is refused).
inline constexpr std::size_t kMinTokenChars = 32;
inline constexpr std::size_t kMinTokenDistinct = 10;
std::string token_problem(const std::string& token);

// The connecting side (a rank opening its store channels, a higher rank
// opening a peer link). channel: "store", "peer" ... must match on both sides.
// expected_peer: the rank we meant to reach, or -1 for any. Returns what the
// peer said about itself once verified. Throws AuthError naming what failed
// (refused: our token is not the acceptor's; the acceptor could not prove the
// token; job id, world or rank mismatch), TimeoutError, PeerDiedError.
PeerHello authenticate(int fd, const Credentials& creds, std::string_view channel, int my_rank,
                       int expected_peer, Deadline deadline, ErrorContext ctx);

// Connects to host:port (connect_with_retry: params' budget and retries) and
// authenticates as the connecting side. When the acceptor drops the
// connection without answering (it sheds the oldest pending handshakes while
// strangers flood it) or the handshake times out, it connects again, within
// the same budget. An AuthError (our token refused, job id, world or rank
// mismatch) is an answer and is thrown at once. hello, when given, receives
// what the peer said about itself.
Fd connect_authenticated(const std::string& host, int port, const LinkParams& params,
                         const Credentials& creds, std::string_view channel, int my_rank,
                         int expected_peer, ErrorContext ctx, PeerHello* hello = nullptr);

// The accepting side, as a non-blocking state machine so that one thread can
// run many handshakes at once (the rendezvous store's event loop, the
// peer-link listeners) and a slow or silent stranger delays nobody. Create it
// on a freshly accepted non-blocking socket, then call advance() whenever the
// socket is readable or writable; it never blocks. The caller enforces the
// deadline (expire it as kRefused "no handshake in time").
class AcceptorHandshake {
 public:
  enum class State {
    kPending,        // call advance() again when the socket is ready
    kAuthenticated,  // hello() is the peer; the socket carries the channel's traffic
    kRefused,        // a stranger: not hnprecheck, garbage, wrong token, closed early
    kMismatch,       // proved the token, but another job, world size or rank
  };
  AcceptorHandshake(int fd, const Credentials& creds, int my_rank, std::string channel);

  State advance();
  State state() const { return state_; }
  // kPending: whether the socket must become writable (an unsent reply) or readable.
  bool wants_write() const { return sent_ < out_.size(); }
  // Whether the peer has sent anything yet (a real rank answers the
  // challenge at once; an idle stranger does not).
  bool heard() const { return step_ > 0 || !in_.empty(); }
  const PeerHello& hello() const { return hello_; }
  // kRefused / kMismatch: why, in words fit to print (peer text made printable).
  const std::string& reason() const { return reason_; }
  // kMismatch: the peer holds the token and our job id (one of the job's own
  // ranks, misconfigured), rather than another job sharing the token.
  bool own_job() const { return own_job_; }

 private:
  State fail(State s, std::string why);
  bool flush();                  // false: the peer is gone
  bool fill(std::size_t total);  // reads until in_ holds total bytes; false: not yet
  void on_hello();
  void on_verdict();

  int fd_;
  const Credentials& creds_;
  int my_rank_;
  std::string channel_;
  State state_ = State::kPending;
  int step_ = 0;  // 0: reading the hello, 1: reading the verdict, 2: refusing
  std::array<unsigned char, 32> na_{}, nc_{};
  std::vector<unsigned char> out_, in_;
  std::size_t sent_ = 0;
  PeerHello hello_;
  std::string reason_;
  bool own_job_ = false;
};

}  // namespace hn::stack::comm
