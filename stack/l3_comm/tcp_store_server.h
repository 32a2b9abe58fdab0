#pragma once
// The rendezvous store hosted by rank 0, plus the job's liveness registry.
//
// One thread runs an epoll event loop over every connection, so the number
// of threads never depends on who connects: it serves thousands of ranks
// (each opens a store channel and a watch channel) and refuses any number of
// strangers at the same time. A connection is served only after it proved
// the job token (auth.h); until then it sits in a bounded HandshakeQueue
// (handshake_queue.h: at most kMaxPending at once, each for at most
// handshake_timeout, the oldest dropped first, a pause instead of a spin on
// EMFILE). The soft descriptor limit is raised to the hard one at start.
//
// A watch channel that closes without saying goodbye means that rank died:
// the server tells every other rank ("rank 3 died"), so a survivor blocked in
// a collective on some other peer still learns the root cause within
// milliseconds.
//
// Strangers never fail the job: garbage, a wrong token, a replayed or
// truncated handshake, a rank of another job (even one sharing the token)
// are refused and recorded (rejections(), and the sink given to
// set_rejection_sink); ranks still waiting for a missing one are told what
// was refused in their timeout message. Only the job's own ranks can fail it:
// one that holds the token and the job id but a different world size fails
// the whole job while it is forming (every waiting request and every watcher
// gets the reason).
//
// The destructor stops the loop and closes every socket; it never blocks on
// a peer.

#include <sys/types.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/handshake_queue.h"
#include "stack/l3_comm/socket.h"

namespace hn::stack::comm {

class TcpStoreServer {
 public:
  // Unauthenticated connections handled at once (fewer when the descriptor
  // limit is low: an eighth of it); beyond, the oldest is dropped.
  static constexpr std::size_t kMaxPending = 256;

  // listen_fd: a bound, listening socket (listen_on() or inherited from the
  // local launcher). handshake_timeout bounds a connection that has not
  // proved the token (capped at kMaxHandshake).
  TcpStoreServer(Fd listen_fd, Credentials creds, std::chrono::milliseconds handshake_timeout,
                 std::string plane);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  int port() const;
  // Waits until every rank has said goodbye or died, or the deadline passes;
  // rank 0 calls this before tearing the store down so no survivor mistakes
  // the end of the job for rank 0's death.
  void wait_departures(Deadline deadline);
  // After the job failed to form: keeps answering (with the reason) until
  // every rank has connected and been told, or the deadline passes, so a
  // rank that arrives late learns why instead of finding nobody listening.
  void linger_after_failure(Deadline deadline);
  bool failed() const;
  RejectionLog& rejection_log() { return rejections_; }
  std::vector<std::string> rejections() const { return rejections_.kept(); }
  std::size_t rejected() const { return rejections_.total(); }

 private:
  struct Conn;
  struct Waiter;
  void loop();
  void on_authenticated(HandshakeQueue::Done& d);
  void on_input(Conn& c);
  bool serve_one(Conn& c);  // false: need more bytes
  void reply_waiters(bool timed_out_only);
  void send(Conn& c, const std::vector<std::uint8_t>& bytes);
  void flush(Conn& c);
  void mark_broken(Conn& c);
  void close_broken();
  void close_conn(int fd, bool died);
  void update_interest(int fd);
  void fail_job(const std::string& why);
  void notify_watchers(std::uint8_t op, const std::string& text, int except_rank);
  std::vector<std::uint8_t> missing_reply(const Waiter& w) const;

  Fd listen_fd_;
  Fd epoll_;
  Fd wake_;  // eventfd: the destructor wakes the loop
  Credentials creds_;
  std::chrono::milliseconds handshake_timeout_;
  std::string plane_;
  std::size_t max_pending_ = kMaxPending;
  RejectionLog rejections_;

  // Loop-thread state (no lock needed).
  std::map<int, std::unique_ptr<Conn>> conns_;  // authenticated connections
  std::vector<Waiter> waiters_;
  std::vector<int> broken_;  // connections to close at the end of this turn
  std::map<std::string, std::string> kv_;
  bool listening_ = true;

  // Shared with the callers' threads.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, int> watch_fd_;  // rank -> fd of its watch channel
  std::set<int> joined_, departed_, dead_;
  std::string fatal_;
  bool formed_ = false;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace hn::stack::comm
