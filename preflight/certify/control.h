#pragma once
// The control channel of a certify job: the rendezvous store that rank 0
// hosts (authenticated with the job token, like every communicator's) and
// its liveness watch, without any peer mesh. Phases exchange their plans
// and results through the store; collectives build their own communicators
// per plane.
//
// Contract: the constructor joins the rendezvous within the link budget of
// `options.link` (rank 0 first starts the store on the inherited socket or
// the rendezvous port) or throws LinkError/AuthError/TimeoutError naming
// what failed. on_death() is called once, from the watch thread, when the
// rendezvous reports a rank dead (rank 0: any rank; other ranks: also rank 0
// itself going away); it must not block. Store calls are bounded by their
// timeouts and throw CommError when rank 0 is gone. finish() (rank 0) keeps
// the store up until every rank has left or the deadline passes, so no rank
// mistakes the end of the job for rank 0's death.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "stack/l3_comm/communicator.h"

namespace hn::preflight::certify {

namespace comm = stack::comm;

class Control {
 public:
  using DeathFn = std::function<void(int rank, const std::string& reason)>;
  Control(comm::CommOptions options, DeathFn on_death);
  ~Control();
  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  int rank() const { return opt_.rank; }
  int world() const { return opt_.world; }
  const comm::CommOptions& options() const { return opt_; }
  comm::Store& store() { return *client_; }
  // Ranks the watch reported dead, with the reason (a rank learns of one
  // death; rank 0 of the first, see tcp_store_client.h).
  std::set<int> dead() const;
  // The local address our store connection uses (how rank 0 sees us).
  std::string local_ip() const { return client_->local_ip(); }
  // Rank 0: waits until every rank has said goodbye or died, or `deadline`.
  void finish(comm::Deadline deadline);
  // Leaves the rendezvous: with a goodbye when the run ended normally.
  void leave(bool goodbye);

 private:
  comm::CommOptions opt_;
  DeathFn on_death_;
  std::unique_ptr<comm::TcpStoreServer> server_;
  std::unique_ptr<comm::TcpStoreClient> client_;
  mutable std::mutex mu_;
  std::set<int> dead_;
};

}  // namespace hn::preflight::certify
