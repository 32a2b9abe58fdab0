#pragma once
// A communicator: this rank's place in a job, its rendezvous connection and
// its links to every other rank.
//
// Construction = rendezvous + link setup: rank 0 hosts the store (on an
// inherited socket from the local launcher, or by listening on the
// rendezvous port), every rank authenticates to it, the transport is chosen
// (auto: shm when every rank is on this host, else tcp) and the full mesh is
// connected. The rendezvous connections use link's budget and retries but
// not its binding (the rendezvous is the launcher's address); the peer links
// use all of it. Waits during setup last max(timeout, link.connect_timeout),
// so a peer still inside its link budget is not given up on. Throws
// LinkError/AuthError/TimeoutError naming what failed, within
// link.connect_timeout + max(timeout, link.connect_timeout).
//
// Liveness: a background watch thread turns the rendezvous' death notices
// into AbortState + Device::interrupt(), so a collective blocked anywhere
// throws PeerDiedError naming the dead rank. Destruction says goodbye
// (skipped while an exception unwinds, so the others learn at once that this
// rank is gone); rank 0 keeps the store up until every rank has left or the
// timeout passes.
//
// One thread at a time uses a communicator (like every collective API).
// After a collective threw, the streams are mid-message: the communicator
// is broken and must be destroyed, not reused.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "stack/l3_comm/aligned_buffer.h"
#include "stack/l3_comm/progress.h"
#include "stack/l3_comm/shm/window.h"
#include "stack/l3_comm/tcp_store_client.h"
#include "stack/l3_comm/tcp_store_server.h"

namespace hn::stack::comm {

class Communicator;
namespace testing {  // fault_injection.h: test-only faults in the data path
enum class Fault : int;
void set_fault(Communicator& c, Fault f);
Fault active_fault(const Communicator& c);
class FaultPause;
}  // namespace testing

enum class TransportKind { kAuto, kTcp, kShm };
std::string_view to_string(TransportKind t);
// "auto", "tcp", "shm"; throws std::invalid_argument otherwise.
TransportKind transport_from_string(std::string_view s);

struct CommOptions {
  int rank = 0;
  int world = 1;
  Credentials creds;  // creds.world is set from world
  std::string rendezvous_host = "127.0.0.1";
  int rendezvous_port = 0;
  int store_fd = -1;  // rank 0: an already listening socket to serve the store on
  LinkParams link;
  TransportKind transport = TransportKind::kAuto;
  std::chrono::milliseconds timeout{30000};  // rendezvous waits and each collective
  std::size_t shm_ring_bytes = 0;            // 0: shm::kDefaultRingBytes
  std::string group = "world";
  // Told (throttled, handshake_queue.h) of every connection the rendezvous
  // (rank 0) or a peer-link listener refused: strangers never fail the job,
  // but they are reported with their address.
  std::function<void(const std::string& line)> on_rejection;
};

class Communicator {
 public:
  explicit Communicator(CommOptions options);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return opt_.rank; }
  int size() const { return opt_.world; }
  TransportKind transport() const { return transport_; }
  std::chrono::milliseconds timeout() const { return opt_.timeout; }
  const LinkParams& link() const { return opt_.link; }
  // The transport's pairs (link_bindings.h reports where they are bound);
  // null for a communicator of one rank.
  Device* device() const { return device_.get(); }
  // Connections refused by this rank's rendezvous (rank 0) and peer-link
  // listener: the count, and the first and latest few in words.
  std::size_t rejected() const;
  std::vector<std::string> rejections() const;

  // Runs one collective's schedule under timeout (0: the communicator's).
  // operation names it in errors and must be a string literal (it is
  // compared by address to skip copying it on every call).
  void run(Schedule& s, const char* operation,
           std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  // Throws the pending abort, if any (a death reported between collectives).
  void check_abort(const char* operation) const;
  // A sub-communicator (split.h): its members' ranks in the parent, in this
  // communicator's rank order; empty for a communicator made by rendezvous.
  const std::vector<int>& parent_ranks() const { return parent_ranks_; }
  // The store scoped to this group, for callers that exchange metadata.
  Store& store();
  // Reused per call so a warm small collective allocates nothing. A
  // communicator is used by one thread at a time, like every collective API.
  Schedule& schedule(op::DType t = op::DType::kF32, op::ReduceOp o = op::ReduceOp::kSum) {
    schedule_.clear(t, o, opt_.world);
    return schedule_;
  }
  // A buffer of `bytes` that collectives may read in place on every rank of
  // this host (shm/window.h): with the shm transport, an allreduce whose send
  // and recv buffers lie in windows on every rank reads the peers' buffers
  // directly instead of copying through the rings. Collective: every rank
  // calls it in the same order with the same size. Over TCP (or alone) it is
  // plain page-aligned memory. Zero filled. Throws LinkError/TimeoutError
  // (shm) or std::bad_alloc. free_window() is local, but every rank must free
  // a window before any rank passes a buffer in it to a collective again.
  void* alloc_window(std::size_t bytes);
  void free_window(void* p);
  // Allreduces that ran on the direct path (direct_allreduce.h) so far.
  std::uint64_t direct_calls() const { return direct_calls_; }
  void count_direct_call() { ++direct_calls_; }
  // Allreduces that ran with a single copy (cma_allreduce.h) so far.
  std::uint64_t cma_calls() const { return cma_calls_; }
  void count_cma_call() { ++cma_calls_; }
  // This rank's shm windows; null when it has none.
  const shm::WindowTable* windows() const {
    return windows_ && !windows_->empty() ? windows_.get() : nullptr;
  }
  // This rank's staging area for the staged allreduce (staged_allreduce.h):
  // a shm window of `bytes` every rank maps, allocated on the first call
  // (which is collective: every rank makes it at the same allreduce, with
  // the same size), null without shm. peer_staging(q) is rank q's.
  std::byte* staging(std::size_t bytes);
  std::byte* peer_staging(int q) const { return staging_ ? staging_->peer_base(0, q) : nullptr; }
  // Chunks the staged allreduce has run so far (their parity picks the half
  // of the staging area a chunk uses; the same on every rank).
  std::uint64_t& staged_chunks() { return staged_chunks_; }
  // n ints of scratch, kept between calls (contents unspecified).
  std::vector<int>& index_scratch(std::size_t n) {
    index_scratch_.resize(n);
    return index_scratch_;
  }
  // A page-aligned scratch buffer of at least `bytes`, kept between calls
  // (slot 0..3; contents unspecified; a larger request reallocates).
  std::byte* scratch(int slot, std::size_t bytes) { return scratch_[slot].reserve(bytes); }

 private:
  friend std::unique_ptr<Communicator> split(Communicator&, int, int, const std::string&,
                                             const LinkParams*);
  // A sub-communicator over the parent's links, or over links of its own
  // made with own_links (defined in split.cc).
  Communicator(Communicator& parent, CommOptions options, std::vector<int> parent_ranks,
               const LinkParams* own_links);
  // A device of a sub-communicator's own links: the watch thread interrupts
  // it too when a rank dies (split.cc registers it with the root).
  void watch_device(Device* d, bool add);
  // The parent's abort state for a sub-communicator: a death reaches every group.
  const AbortState& aborts() const { return parent_ ? parent_->aborts() : abort_; }
  friend void testing::set_fault(Communicator& c, testing::Fault f);
  friend testing::Fault testing::active_fault(const Communicator& c);
  friend class testing::FaultPause;
  void on_watch_event(int dead_rank, const std::string& reason);
  void connect_all(const ErrorContext& ctx);

  CommOptions opt_;
  TransportKind transport_ = TransportKind::kTcp;
  std::unique_ptr<TcpStoreServer> server_;
  std::unique_ptr<TcpStoreClient> client_;
  std::unique_ptr<PrefixStore> group_store_;
  std::unique_ptr<Device> device_;
  std::atomic<Device*> live_device_{nullptr};
  AbortState abort_;
  RejectionLog link_rejections_;
  Schedule schedule_;
  ErrorContext run_ctx_;
  const char* run_op_ = nullptr;  // the operation run_ctx_ names
  AlignedBuffer scratch_[4];
  std::unique_ptr<shm::WindowTable> windows_;
  std::unique_ptr<shm::WindowTable> staging_;
  std::size_t staging_bytes_ = 0;
  std::uint64_t staged_chunks_ = 0;
  std::uint64_t direct_calls_ = 0;
  std::uint64_t cma_calls_ = 0;
  std::vector<std::pair<void*, std::size_t>> local_windows_;  // not shm: plain mappings
  std::vector<int> index_scratch_;
  std::mutex watched_mu_;
  std::vector<Device*> watched_;    // sub-communicators' own devices (root only)
  Communicator* parent_ = nullptr;  // sub-communicators only
  std::vector<int> parent_ranks_;
  int splits_ = 0;  // splits made from this communicator (names their store scopes)
  int fault_ = 0, fault_paused_ = 0;  // testing::Fault; 0 = none
  std::vector<std::byte> fault_scratch_;
};

}  // namespace hn::stack::comm
