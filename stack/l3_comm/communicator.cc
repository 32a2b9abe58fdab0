#include "stack/l3_comm/communicator.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/mman.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <stdexcept>
#include <thread>

#include "stack/l3_comm/fault_injection.h"
#include "stack/l3_comm/local_nics.h"
#include "stack/l3_comm/shm/device.h"
#include "stack/l3_comm/tcp/device.h"

namespace hn::stack::comm {

// split.cc: rethrows the CommError being handled with the root's ranks.
[[noreturn]] void rethrow_in_parent_ranks(const std::vector<int>& ranks, const std::string& group);

namespace {

// Whether a "key(s) still missing" message names one of `rank`'s own keys
// (host/3, addr/3, seg/3, mapped/3: every per-rank key ends in /<rank>).
bool names_rank_key(const std::string& missing, int rank) {
  const std::string tail = "/" + std::to_string(rank);
  for (std::size_t at = missing.find(tail); at != std::string::npos;
       at = missing.find(tail, at + 1)) {
    const std::size_t end = at + tail.size();
    if (end == missing.size() || !std::isdigit(static_cast<unsigned char>(missing[end])))
      return true;
  }
  return false;
}

// A LinkError's detail starts with its kind ("timeout: ..."); a rethrow with
// more text adds the kind again.
std::string without_kind(const std::string& detail) {
  const std::string kind = std::string(LinkError::kind_name(LinkError::Kind::kTimeout)) + ": ";
  return detail.rfind(kind, 0) == 0 ? detail.substr(kind.size()) : detail;
}

// The rendezvous is the launcher's address (MASTER_ADDR, --rendezvous), like
// torch's TCPStore: its connections keep the link budget and retries but not
// the peer links' binding, which selects the plane for collective traffic
// (HCCL_IF_IP and *_SOCKET_IFNAME govern the library's links, not the store).
LinkParams rendezvous_params(LinkParams p) {
  p.bind_address.clear();
  p.bind_interface.clear();
  p.family = AF_UNSPEC;
  return p;
}

// Where rank 0's store listens: the rendezvous address when it is one of this
// host's own addresses (a name is resolved within 2 s), so the store is not
// open on every network the node is on; every address otherwise (a
// Kubernetes service IP, a NAT address, a name that does not resolve here or
// resolves to several addresses).
// Sets p.family to the address's family.
std::string store_listen_address(const std::string& host, int port, LinkParams& p) {
  if (host.empty()) return "";
  addrinfo* res = nullptr;
  if (resolve_until(host, port, p.family, Clock::now() + std::chrono::seconds(2), &res) != 0 ||
      !res)
    return "";
  std::vector<std::string> candidates;
  for (addrinfo* a = res; a; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        a->ai_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr)
            : &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr;
    if (inet_ntop(a->ai_family, raw, text, sizeof text)) candidates.push_back(text);
  }
  freeaddrinfo(res);
  // A name with several addresses (localhost: 127.0.0.1 and ::1) may reach
  // the ranks on any of them: only one address can be bound alone.
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  if (candidates.size() != 1) return "";
  std::vector<compat::NicCandidate> nics;
  try {
    nics = local_nic_candidates();
  } catch (const std::exception&) {
    return "";
  }
  for (const auto& ip : candidates)
    if (!nic_holding(ip, nics).empty()) {
      p.family = ip.find(':') != std::string::npos ? AF_INET6 : AF_INET;
      return ip;
    }
  return "";
}

}  // namespace

std::string_view to_string(TransportKind t) {
  switch (t) {
    case TransportKind::kAuto:
      return "auto";
    case TransportKind::kTcp:
      return "tcp";
    case TransportKind::kShm:
      return "shm";
  }
  return "?";
}

TransportKind transport_from_string(std::string_view s) {
  if (s == "auto") return TransportKind::kAuto;
  if (s == "tcp") return TransportKind::kTcp;
  if (s == "shm") return TransportKind::kShm;
  throw std::invalid_argument("unknown transport '" + std::string(s) +
                              "' (expected tcp, shm or auto)");
}

Communicator::Communicator(CommOptions options) : opt_(std::move(options)) {
  opt_.creds.world = opt_.world;
  if (opt_.world < 1 || opt_.rank < 0 || opt_.rank >= opt_.world)
    throw std::invalid_argument("rank " + std::to_string(opt_.rank) + " is not in a world of " +
                                std::to_string(opt_.world));
  if (opt_.world == 1) {
    transport_ = opt_.transport == TransportKind::kTcp ? TransportKind::kTcp : TransportKind::kShm;
    return;
  }
  ErrorContext ctx;
  ctx.local_rank = opt_.rank;
  ctx.plane = opt_.link.plane;
  ctx.operation = "rendezvous";
  if (opt_.rank == 0) {
    Fd listener(opt_.store_fd);
    if (!listener) {
      LinkParams p = rendezvous_params(opt_.link);
      const std::string at = store_listen_address(opt_.rendezvous_host, opt_.rendezvous_port, p);
      listener = listen_on(at, opt_.rendezvous_port, p, ctx);
    }
    opt_.store_fd = -1;
    server_ = std::make_unique<TcpStoreServer>(std::move(listener), opt_.creds,
                                               opt_.link.connect_timeout, opt_.link.plane);
    if (opt_.on_rejection) server_->rejection_log().set_sink(opt_.on_rejection);
  }
  if (opt_.on_rejection) link_rejections_.set_sink(opt_.on_rejection);
  try {
    connect_all(ctx);
  } catch (const LinkError& e) {
    // A broken rendezvous is often the echo of the real cause, which the
    // watch channel reports (the job failed to form, a rank died): prefer it.
    // Not over our own timeout, though: a key still missing from the
    // rendezvous is first-hand, while a peer that left is only the cause when
    // the missing key is its own. Otherwise it gave up at its own, nearly
    // equal timeout, waiting for the same absent rank.
    const auto* timeout = dynamic_cast<const TimeoutError*>(&e);
    for (int i = 0; i < 30 && !abort_.is_set() && client_ && !timeout; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (client_) client_->close(false);
    // Rank 0 of a job that failed to form keeps telling latecomers why.
    if (server_ && server_->failed()) server_->linger_after_failure(Clock::now() + opt_.timeout);
    if (abort_.is_set() && timeout && abort_.dead_rank() >= 0 &&
        !names_rank_key(timeout->detail(), abort_.dead_rank()))
      throw TimeoutError(without_kind(timeout->detail()) + "; meanwhile " + abort_.reason(),
                         timeout->context());
    if (abort_.is_set() && !dynamic_cast<const AuthError*>(&e)) throw_aborted(abort_, ctx);
    throw;
  } catch (...) {
    if (client_) client_->close(false);
    if (server_ && server_->failed()) server_->linger_after_failure(Clock::now() + opt_.timeout);
    throw;
  }
}

void Communicator::connect_all(const ErrorContext& ctx) {
  client_ = std::make_unique<TcpStoreClient>(opt_.rendezvous_host, opt_.rendezvous_port,
                                             rendezvous_params(opt_.link), opt_.creds, opt_.rank);
  // While links are set up, a peer may legitimately take the whole link
  // budget to reach us: wait at least that long for it.
  const auto setup_wait = std::max(opt_.timeout, opt_.link.connect_timeout);
  client_->start_watch([this](int dead, const std::string& why) { on_watch_event(dead, why); });
  group_store_ = std::make_unique<PrefixStore>(*client_, "g/" + opt_.group);

  // Transport choice: shm needs every rank on this host (same boot, same
  // pid namespace), which the ranks tell each other through the store.
  group_store_->set("host/" + std::to_string(opt_.rank), shm::same_host_key());
  bool all_local = true;
  const std::string mine = shm::same_host_key();
  for (int r = 0; r < opt_.world; ++r)
    if (group_store_->get("host/" + std::to_string(r), setup_wait) != mine) all_local = false;
  if (opt_.transport == TransportKind::kShm && !all_local)
    throw LinkError(
        LinkError::Kind::kOther,
        "--transport shm needs every rank on this host; some ranks run elsewhere (use tcp or auto)",
        ctx);
  transport_ = opt_.transport == TransportKind::kAuto
                   ? (all_local ? TransportKind::kShm : TransportKind::kTcp)
                   : opt_.transport;

  PrefixStore link_store(*group_store_, std::string(to_string(transport_)));
  DeviceSetup setup;
  setup.rank = opt_.rank;
  setup.world = opt_.world;
  setup.store = &link_store;
  setup.creds = opt_.creds;
  setup.link = opt_.link;
  setup.advertise_ip = client_->local_ip();
  setup.timeout = setup_wait;
  setup.shm_ring_bytes = opt_.shm_ring_bytes;
  setup.rejections = &link_rejections_;
  device_ =
      transport_ == TransportKind::kShm ? shm::create_device(setup) : tcp::create_device(setup);
  live_device_.store(device_.get(), std::memory_order_release);
  if (abort_.is_set()) device_->interrupt();
  check_abort("link setup");
}

Communicator::~Communicator() {
  for (auto& [p, len] : local_windows_) munmap(p, len);
  if (parent_ && device_) {  // a group with links of its own: no more interrupts for them
    Communicator* root = parent_;
    while (root->parent_) root = root->parent_;
    root->watch_device(device_.get(), false);
  }
  const bool failing = std::uncaught_exceptions() > 0 || abort_.is_set();
  if (client_) client_->close(!failing);
  if (server_)
    server_->wait_departures(Clock::now() +
                             (failing ? std::chrono::milliseconds(500) : opt_.timeout));
  live_device_.store(nullptr, std::memory_order_release);
  // Without a goodbye the watch channel closes with the process: the
  // rendezvous reports this rank as gone, which is the truth.
  client_.reset();
  server_.reset();
}

void Communicator::on_watch_event(int dead_rank, const std::string& reason) {
  abort_.set(dead_rank, reason);
  if (Device* d = live_device_.load(std::memory_order_acquire)) d->interrupt();
  std::lock_guard<std::mutex> lock(watched_mu_);
  for (Device* d : watched_) d->interrupt();
}

void Communicator::check_abort(const char* operation) const {
  if (!aborts().is_set()) return;
  ErrorContext ctx;
  ctx.local_rank = opt_.rank;
  ctx.plane = opt_.link.plane;
  ctx.operation = operation;
  if (!parent_) throw_aborted(abort_, ctx);
  try {
    throw_aborted(aborts(), ctx);
  } catch (const CommError&) {
    rethrow_in_parent_ranks(parent_ranks_, opt_.group);  // split.cc
  }
}

std::size_t Communicator::rejected() const {
  return (server_ ? server_->rejected() : 0) + link_rejections_.total();
}

std::vector<std::string> Communicator::rejections() const {
  std::vector<std::string> out = server_ ? server_->rejections() : std::vector<std::string>{};
  auto links = link_rejections_.kept();
  out.insert(out.end(), links.begin(), links.end());
  return out;
}

void* Communicator::alloc_window(std::size_t bytes) {
  if (transport_ == TransportKind::kShm && opt_.world > 1) {
    if (!windows_) windows_ = std::make_unique<shm::WindowTable>();
    return windows_->allocate(store(), opt_.rank, opt_.world, bytes, opt_.timeout);
  }
  const std::size_t len = std::max<std::size_t>((bytes + 4095) / 4096 * 4096, 4096);
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  local_windows_.emplace_back(p, len);
  return p;
}

std::byte* Communicator::staging(std::size_t bytes) {
  if (transport_ != TransportKind::kShm || opt_.world < 2) return nullptr;
  if (!staging_) {
    staging_ = std::make_unique<shm::WindowTable>("staging/");
    staging_bytes_ = bytes;
    return staging_->allocate(store(), opt_.rank, opt_.world, bytes, opt_.timeout);
  }
  if (bytes > staging_bytes_)
    throw std::logic_error("staging area asked for " + std::to_string(bytes) + " bytes, has " +
                           std::to_string(staging_bytes_));
  return staging_->peer_base(0, opt_.rank);
}

void Communicator::free_window(void* p) {
  for (auto it = local_windows_.begin(); it != local_windows_.end(); ++it)
    if (it->first == p) {
      munmap(it->first, it->second);
      local_windows_.erase(it);
      return;
    }
  if (windows_) windows_->release(p);
}

Store& Communicator::store() {
  if (!group_store_) throw std::logic_error("a communicator of one rank has no store");
  return *group_store_;
}

void Communicator::run(Schedule& s, const char* operation, std::chrono::milliseconds timeout) {
  if (s.transfers.empty()) return;
  // Reused so the hot path neither allocates nor copies the operation's name
  // (callers pass string literals).
  if (operation != run_op_) {
    run_ctx_.local_rank = opt_.rank;
    run_ctx_.plane = transport_ == TransportKind::kShm ? "shm" : opt_.link.plane;
    run_ctx_.operation.assign(operation);
    run_op_ = operation;
  }
  if (aborts().is_set()) check_abort(operation);
  const auto t = timeout.count() > 0 ? timeout : opt_.timeout;
  if (fault_ != 0 && fault_paused_ == 0) [[unlikely]] {
    testing::run_with_fault(static_cast<testing::Fault>(fault_), *device_, s, t, aborts(), run_ctx_,
                            fault_scratch_);
    return;
  }
  if (!parent_) return run_schedule(*device_, s, t, abort_, run_ctx_);
  try {
    run_schedule(*device_, s, t, aborts(), run_ctx_);
  } catch (const CommError&) {
    rethrow_in_parent_ranks(parent_ranks_, opt_.group);
  }
}

}  // namespace hn::stack::comm
