#pragma once
// A rank's connection to the rendezvous store (TcpStoreServer), plus its
// watch channel. Both are authenticated before use.
//
// start_watch() runs one background thread that reads the watch channel and
// calls on_event(dead_rank, reason) once: when the server reports a dead rank,
// when the job fails to form (dead_rank -1), or when the server itself goes
// away without a goodbye (rank 0 died). The callback must not block.
// close() says goodbye and joins the thread; the destructor calls it.
// Store calls are serialised; each is bounded by its timeout.

#include <functional>
#include <mutex>
#include <thread>

#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/store.h"

namespace hn::stack::comm {

class TcpStoreClient : public Store {
 public:
  TcpStoreClient(const std::string& host, int port, const LinkParams& params,
                 const Credentials& creds, int rank);
  ~TcpStoreClient() override;

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  using EventFn = std::function<void(int dead_rank, const std::string& reason)>;
  void start_watch(EventFn on_event);
  // goodbye=false leaves without saying goodbye: the rendezvous then reports
  // this rank as gone, which is what a failing rank wants the others to know.
  void close(bool goodbye = true);
  // The local IP our store connection uses: the address peers can reach us at.
  std::string local_ip() const { return local_ip_of(req_.get()); }

 private:
  std::string request(const std::string& what, std::uint8_t op,
                      const std::vector<std::string>& keys, const std::string& value,
                      std::chrono::milliseconds timeout);
  Fd open_channel(const std::string& host, int port, const LinkParams& params, std::uint8_t kind);

  Credentials creds_;
  int rank_;
  ErrorContext ctx_;
  std::mutex mu_;
  Fd req_, watch_;
  std::thread watcher_;
  std::mutex close_mu_;
  bool closed_ = false;
};

}  // namespace hn::stack::comm
