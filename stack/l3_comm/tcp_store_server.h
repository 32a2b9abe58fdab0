#pragma once
// The rendezvous store hosted by rank 0, plus the job's liveness registry.
//
// Every connection is authenticated (auth.h) before any request is served.
// Each rank opens two connections: a store channel (set/get/wait) and a
// watch channel. A watch channel that closes without saying goodbye means
// that rank died: the server tells every other rank ("rank 3 died"), so a
// survivor blocked in a collective on some other peer still learns the
// root cause within milliseconds.
//
// While the job is forming (not every rank has joined yet) an authentication
// failure - a wrong token, a foreign job on our port, a stranger - fails the
// whole job: every waiting request and every watcher gets the reason. Once
// formed, intruders are only turned away (rejections()).
//
// Threads: one acceptor plus one per connection; all are joined by the
// destructor, which first shuts every socket down, so it never blocks.

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/socket.h"

namespace hn::stack::comm {

class TcpStoreServer {
 public:
  // listen_fd: a bound, listening socket (listen_on() or inherited from the
  // local launcher). handshake_timeout bounds a silent connection.
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
  std::vector<std::string> rejections() const;

 private:
  void accept_loop();
  void serve(int fd);
  void serve_requests(int fd, int rank, const ErrorContext& ctx);
  void serve_watch(int fd, int rank, const ErrorContext& ctx);
  void on_death(int rank);
  void fail_job(const std::string& why);
  void notify_watchers(std::uint8_t op, const std::string& text, int except_rank);

  Fd listen_fd_;
  Fd wake_[2];
  Credentials creds_;
  std::chrono::milliseconds handshake_timeout_;
  std::string plane_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> kv_;
  std::map<int, int> watch_fd_;  // rank -> fd of its watch channel
  std::set<int> joined_, departed_, dead_;
  std::string fatal_;
  std::vector<std::string> rejections_;
  std::vector<int> conn_fds_;
  std::vector<std::thread> threads_;
  bool formed_ = false;
  bool closing_ = false;
  std::thread acceptor_;
};

}  // namespace hn::stack::comm
