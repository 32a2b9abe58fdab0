#pragma once
// Connections accepted on a listener (the rendezvous store, a peer-link
// listener) that have not yet proved the job token, run as non-blocking
// handshakes (auth.h AcceptorHandshake) so that one thread serves them all
// and a slow, silent or hostile stranger delays nobody.
//
// Bounded on every axis, so no stranger can exhaust threads, descriptors or
// memory of the listening rank:
//  * at most max_pending handshakes at once: a new connection beyond that
//    drops the oldest one that has not said a word, else the oldest (a real
//    rank answers at once and finishes in a few round trips; one dropped
//    anyway reconnects: auth.h connect_authenticated);
//  * each handshake has `timeout`; past it the connection is dropped;
//  * on EMFILE/ENFILE the oldest pending handshake is dropped to free a
//    descriptor; with none to drop, accepting pauses for kAcceptBackoff
//    (the kernel keeps the backlog) instead of spinning on the error.
// Every refusal is recorded in the RejectionLog with the peer's address.
//
// Not thread-safe: one thread owns a queue. RejectionLog is thread-safe.

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stack/l3_comm/auth.h"

namespace hn::stack::comm {

// What a connection that has not proved the token may hold at most: a real
// rank needs a few round trips.
inline constexpr std::chrono::milliseconds kMaxHandshakeTime{10000};

// Refused connections: counted, the first and the latest kept in words, and
// reported through a callback (throttled: the first kReported, then one line
// per kReportEvery) so a flood of strangers cannot flood the log.
class RejectionLog {
 public:
  using Sink = std::function<void(const std::string& line)>;
  static constexpr std::size_t kKept = 20;
  static constexpr std::size_t kReported = 20;
  static constexpr std::size_t kReportEvery = 1000;

  void set_sink(Sink sink);
  // where: "the rendezvous", "the peer-link listener of rank 2".
  void note(const std::string& where, const std::string& address, const std::string& reason);
  std::size_t total() const;
  std::vector<std::string> kept() const;  // the first kKept / 2 and the latest kKept / 2
  // "refused 3 connection(s), the latest from 10.0.0.9:4242: wrong job token"; "" when none.
  std::string summary() const;

 private:
  mutable std::mutex mu_;
  Sink sink_;
  std::size_t total_ = 0;
  std::vector<std::string> first_, latest_;
  std::string latest_brief_;
};

class HandshakeQueue {
 public:
  static constexpr std::chrono::milliseconds kAcceptBackoff{100};

  struct Done {
    AcceptorHandshake::State state;
    Fd fd;  // kAuthenticated: the connection (still non-blocking), now the caller's
    PeerHello hello;
    std::string address;
    std::string reason;    // kRefused, kMismatch
    bool own_job = false;  // kMismatch of a rank that holds the token and our job id
  };

  HandshakeQueue(const Credentials& creds, int my_rank, std::string channel,
                 std::chrono::milliseconds timeout, std::size_t max_pending, RejectionLog& log,
                 std::string where);
  ~HandshakeQueue();
  HandshakeQueue(const HandshakeQueue&) = delete;
  HandshakeQueue& operator=(const HandshakeQueue&) = delete;

  // Accepts up to burst connections from a non-blocking listener; each new
  // one gets its challenge at once. Returns the descriptors added.
  std::vector<int> accept_from(int listen_fd, std::size_t burst = 64);
  // fd became readable or writable (or the caller wants to retry).
  void advance(int fd);
  // Drops handshakes past their deadline.
  void expire(Clock::time_point now);
  // Finished handshakes since the last call, in order.
  std::vector<Done> take();

  bool pending(int fd) const { return pending_.count(fd) > 0; }
  bool wants_write(int fd) const;
  std::vector<int> pending_fds() const;
  // The earliest time something must happen: a handshake deadline, or the
  // end of an accept pause. Clock::time_point::max() when nothing is pending.
  Clock::time_point next_event() const;
  // Accepting is paused (descriptors exhausted) until this time.
  bool accept_paused(Clock::time_point now) const { return now < resume_accept_; }
  std::size_t size() const { return pending_.size(); }

 private:
  struct Entry {
    Fd fd;
    std::unique_ptr<AcceptorHandshake> hs;
    Clock::time_point deadline;
    std::string address;
    std::uint64_t seq;
  };
  void finish(int fd);
  void drop(int fd, const std::string& why);
  bool drop_oldest(const std::string& why);

  Credentials creds_;
  int my_rank_;
  std::string channel_;
  std::chrono::milliseconds timeout_;
  std::size_t max_pending_;
  RejectionLog& log_;
  std::string where_;
  std::map<int, Entry> pending_;
  std::vector<Done> done_;
  std::uint64_t seq_ = 0;
  Clock::time_point resume_accept_{};
};

}  // namespace hn::stack::comm
