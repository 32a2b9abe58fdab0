#include "stack/l3_comm/tcp_store_server.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "stack/l3_comm/store_wire.h"

namespace hn::stack::comm {

namespace {

// A client that stops reading its replies is cut off past this much backlog.
constexpr std::size_t kMaxQueuedOutput = std::size_t{256} << 20;
// Bytes read from one connection per turn, so one busy rank cannot starve the rest.
constexpr std::size_t kReadPerTurn = std::size_t{1} << 20;

// Every descriptor the hard limit allows: two per rank, plus the strangers
// being refused. Returns the soft limit in force.
std::size_t raise_descriptor_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  return rl.rlim_cur == RLIM_INFINITY ? std::size_t{1} << 20
                                      : static_cast<std::size_t>(rl.rlim_cur);
}

}  // namespace

struct TcpStoreServer::Conn {
  enum class Kind { kAwaitKind, kRequests, kWatch };
  Fd fd;
  int rank = -1;
  Kind kind = Kind::kAwaitKind;
  std::string address;
  std::string in;  // bytes received, not yet served
  std::vector<std::uint8_t> out;
  std::size_t out_sent = 0;
  bool busy = false;    // a get/wait is pending: the client sends nothing more until answered
  bool broken = false;  // to be closed (in close_broken, so references stay valid until then)
};

struct TcpStoreServer::Waiter {
  int fd;
  std::uint8_t op;
  std::vector<std::string> keys;
  std::size_t first_missing = 0;  // keys only ever appear, so the check resumes here
  Clock::time_point deadline;
};

TcpStoreServer::TcpStoreServer(Fd listen_fd, Credentials creds,
                               std::chrono::milliseconds handshake_timeout, std::string plane)
    : listen_fd_(std::move(listen_fd)),
      creds_(std::move(creds)),
      handshake_timeout_(std::min(handshake_timeout, kMaxHandshakeTime)),
      plane_(std::move(plane)) {
  // Strangers may hold at most an eighth of the descriptors, so the rank
  // keeps what it needs for its own links however many of them come.
  max_pending_ = std::clamp<std::size_t>(raise_descriptor_limit() / 8, 8, kMaxPending);
  set_nonblocking(listen_fd_.get(), true);
  epoll_.reset(epoll_create1(EPOLL_CLOEXEC));
  wake_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!epoll_ || !wake_)
    throw LinkError(LinkError::Kind::kOther, "cannot create the rendezvous event loop", {});
  for (int fd : {listen_fd_.get(), wake_.get()}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev);
  }
  thread_ = std::thread([this] { loop(); });
}

TcpStoreServer::~TcpStoreServer() {
  {
    std::lock_guard lk(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  std::uint64_t one = 1;
  (void)!write(wake_.get(), &one, sizeof one);
  thread_.join();
  for (auto& [fd, c] : conns_) shutdown(fd, SHUT_RDWR);
}

int TcpStoreServer::port() const {
  return local_port_of(listen_fd_.get());
}

void TcpStoreServer::wait_departures(Deadline deadline) {
  std::unique_lock lk(mu_);
  cv_.wait_until(lk, deadline, [&] {
    return static_cast<int>(departed_.size() + dead_.size()) >= creds_.world || !fatal_.empty();
  });
}

void TcpStoreServer::linger_after_failure(Deadline deadline) {
  std::unique_lock lk(mu_);
  if (fatal_.empty()) return;
  cv_.wait_until(lk, deadline, [&] { return static_cast<int>(joined_.size()) >= creds_.world; });
  // Let the last ones read their replies before the sockets close.
  cv_.wait_until(lk, std::min(deadline, Clock::now() + std::chrono::milliseconds(500)),
                 [] { return false; });
}

bool TcpStoreServer::failed() const {
  std::lock_guard lk(mu_);
  return !fatal_.empty();
}

void TcpStoreServer::loop() {
  HandshakeQueue queue(creds_, 0, "store", handshake_timeout_, max_pending_, rejections_,
                       "the rendezvous");
  std::vector<epoll_event> events(256);
  for (;;) {
    auto now = Clock::now();
    if (!listening_ && !queue.accept_paused(now)) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = listen_fd_.get();
      epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, listen_fd_.get(), &ev);
      listening_ = true;
    }
    auto next = queue.next_event();
    for (const auto& w : waiters_) next = std::min(next, w.deadline);
    const int timeout_ms = next == Clock::time_point::max() ? -1 : std::max(ms_left(next), 1);
    const int n =
        epoll_wait(epoll_.get(), events.data(), static_cast<int>(events.size()), timeout_ms);
    if (n < 0 && errno != EINTR) return;
    for (int i = 0; i < std::max(n, 0); ++i) {
      const int fd = events[i].data.fd;
      const auto ev = events[i].events;
      if (fd == wake_.get()) {
        std::lock_guard lk(mu_);
        if (closing_) return;
        continue;
      }
      if (fd == listen_fd_.get()) {
        for (int added : queue.accept_from(fd)) {
          if (!queue.pending(added)) continue;  // refused at once
          epoll_event e{};
          e.events = EPOLLIN | (queue.wants_write(added) ? EPOLLOUT : 0u);
          e.data.fd = added;
          epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, added, &e);
        }
        if (queue.accept_paused(Clock::now())) {
          // Out of descriptors with no stranger left to drop: stop polling
          // the listener (it would spin) until the back-off ends.
          epoll_event e{};
          e.data.fd = fd;
          epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &e);
          listening_ = false;
        }
        continue;
      }
      if (queue.pending(fd)) {
        queue.advance(fd);
        if (queue.pending(fd)) {
          epoll_event e{};
          e.events = EPOLLIN | (queue.wants_write(fd) ? EPOLLOUT : 0u);
          e.data.fd = fd;
          epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &e);
        }
        continue;
      }
      auto it = conns_.find(fd);
      if (it == conns_.end()) continue;  // closed earlier in this batch
      if (ev & EPOLLOUT) flush(*it->second);
      if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_input(*it->second);
      close_broken();
    }
    queue.expire(Clock::now());
    for (auto& d : queue.take()) {
      if (d.state == AcceptorHandshake::State::kAuthenticated) {
        on_authenticated(d);
      } else if (d.state == AcceptorHandshake::State::kMismatch && d.own_job) {
        // One of the job's own ranks (token and job id) with another world
        // size: the job cannot form.
        bool forming;
        {
          std::lock_guard lk(mu_);
          forming = !formed_;
        }
        if (forming)
          fail_job(
              "the rendezvous turned away one of the job's own ranks while the job was "
              "forming: " +
              d.reason + " (from " + d.address + ")");
      }
    }
    reply_waiters(true);
    close_broken();
  }
}

void TcpStoreServer::on_authenticated(HandshakeQueue::Done& d) {
  const int fd = d.fd.get();
  auto c = std::make_unique<Conn>();
  c->fd = std::move(d.fd);
  c->rank = d.hello.rank;
  c->address = d.address;
  Conn& conn = *c;
  conns_[fd] = std::move(c);
  update_interest(fd);
  on_input(conn);  // the kind byte may already be here
  close_broken();
}

void TcpStoreServer::update_interest(int fd) {
  auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  const Conn& c = *it->second;
  epoll_event e{};
  e.events = EPOLLIN | (c.out_sent < c.out.size() ? EPOLLOUT : 0u);
  e.data.fd = fd;
  // A handshake that finished inside accept_from() was never registered.
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &e) != 0 && errno == ENOENT)
    epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &e);
}

void TcpStoreServer::on_input(Conn& c) {
  const int fd = c.fd.get();
  bool closed = false;
  std::size_t got = 0;
  char buf[65536];
  while (got < kReadPerTurn) {
    ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (r > 0) {
      c.in.append(buf, static_cast<std::size_t>(r));
      got += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    closed = true;
    break;
  }
  try {
    while (!c.broken && !c.busy && serve_one(c)) {
    }
  } catch (const CommError&) {
    closed = true;  // a malformed request from an authenticated rank: drop it
  }
  if (closed) mark_broken(c);
}

void TcpStoreServer::mark_broken(Conn& c) {
  if (c.broken) return;
  c.broken = true;
  broken_.push_back(c.fd.get());
}

void TcpStoreServer::close_broken() {
  // Closing a watch channel tells the others, which may break more.
  while (!broken_.empty()) {
    const int fd = broken_.back();
    broken_.pop_back();
    close_conn(fd, true);
  }
}

bool TcpStoreServer::serve_one(Conn& c) {
  wire::BufferReader r(c.in);
  std::uint8_t op;
  if (!r.op(op)) return false;
  if (c.kind == Conn::Kind::kAwaitKind) {
    c.in.erase(0, r.consumed());
    if (op == wire::kRequests) {
      c.kind = Conn::Kind::kRequests;
      return true;
    }
    if (op != wire::kWatch) throw LinkError(LinkError::Kind::kOther, "unknown channel", {});
    c.kind = Conn::Kind::kWatch;
    std::vector<int> dead;
    std::string fatal;
    {
      std::lock_guard lk(mu_);
      watch_fd_[c.rank] = c.fd.get();
      joined_.insert(c.rank);
      if (static_cast<int>(joined_.size()) == creds_.world) formed_ = true;
      fatal = fatal_;
      dead.assign(dead_.begin(), dead_.end());
    }
    cv_.notify_all();
    // A rank joining late learns what already happened.
    if (!fatal.empty()) send(c, wire::Writer(wire::kAbort).text(fatal).bytes());
    for (int d : dead) send(c, wire::Writer(wire::kDead).text(std::to_string(d)).bytes());
    return true;
  }
  if (c.kind == Conn::Kind::kWatch) {
    c.in.erase(0, r.consumed());
    if (op == wire::kBye) {
      std::lock_guard lk(mu_);
      departed_.insert(c.rank);
      cv_.notify_all();
    }
    return true;
  }
  if (op == wire::kSet) {
    std::string key, value;
    if (!r.text(key) || !r.text(value)) return false;
    c.in.erase(0, r.consumed());
    kv_[key] = std::move(value);
    send(c, wire::Writer(wire::kOk).bytes());
    reply_waiters(false);
    return true;
  }
  if (op != wire::kGet && op != wire::kWait)
    throw LinkError(LinkError::Kind::kOther, "unknown store request", {});
  std::uint32_t nkeys = 1;
  if (op == wire::kWait && !r.u32(nkeys)) return false;
  if (nkeys > 1000000) throw LinkError(LinkError::Kind::kOther, "too many keys", {});
  Waiter w{c.fd.get(), op, {}, 0, {}};
  for (std::uint32_t i = 0; i < nkeys; ++i) {
    std::string k;
    if (!r.text(k)) return false;
    w.keys.push_back(std::move(k));
  }
  std::uint32_t timeout_ms;
  if (!r.u32(timeout_ms)) return false;
  c.in.erase(0, r.consumed());
  w.deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  c.busy = true;
  waiters_.push_back(std::move(w));
  reply_waiters(false);
  return true;
}

std::vector<std::uint8_t> TcpStoreServer::missing_reply(const Waiter& w) const {
  wire::Writer reply(wire::kMissing);
  std::vector<const std::string*> missing;
  for (std::size_t i = w.first_missing; i < w.keys.size(); ++i)
    if (!kv_.count(w.keys[i])) missing.push_back(&w.keys[i]);
  reply.u32(static_cast<std::uint32_t>(missing.size()));
  for (const auto* k : missing) reply.text(*k);
  // Why a rank may be missing: the rendezvous refused connections.
  reply.text(rejections_.summary());
  return reply.bytes();
}

void TcpStoreServer::reply_waiters(bool timed_out_only) {
  std::string fatal;
  {
    std::lock_guard lk(mu_);
    fatal = fatal_;
  }
  const auto now = Clock::now();
  std::vector<Waiter> keep;
  std::vector<std::pair<int, std::vector<std::uint8_t>>> replies;
  for (auto& w : waiters_) {
    if (!fatal.empty()) {
      replies.emplace_back(w.fd, wire::Writer(wire::kFatal).text(fatal).bytes());
      continue;
    }
    if (!timed_out_only || w.deadline <= now)
      while (w.first_missing < w.keys.size() && kv_.count(w.keys[w.first_missing]))
        ++w.first_missing;
    if (w.first_missing == w.keys.size()) {
      replies.emplace_back(w.fd, w.op == wire::kGet
                                     ? wire::Writer(wire::kValue).text(kv_[w.keys[0]]).bytes()
                                     : wire::Writer(wire::kOk).bytes());
    } else if (w.deadline <= now) {
      replies.emplace_back(w.fd, missing_reply(w));
    } else {
      keep.push_back(std::move(w));
    }
  }
  waiters_.swap(keep);
  for (auto& [fd, bytes] : replies) {
    auto it = conns_.find(fd);
    if (it == conns_.end() || it->second->broken) continue;
    it->second->busy = false;
    send(*it->second, bytes);
    // A request that arrived while this one waited is served now.
    on_input(*it->second);
  }
}

void TcpStoreServer::send(Conn& c, const std::vector<std::uint8_t>& bytes) {
  if (c.broken) return;
  if (c.out.size() - c.out_sent + bytes.size() > kMaxQueuedOutput) {
    mark_broken(c);
    return;
  }
  c.out.insert(c.out.end(), bytes.begin(), bytes.end());
  flush(c);
}

void TcpStoreServer::flush(Conn& c) {
  const int fd = c.fd.get();
  while (c.out_sent < c.out.size()) {
    ssize_t n = ::send(fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent,
                       MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      c.out_sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    mark_broken(c);
    return;
  }
  if (c.out_sent == c.out.size()) {
    c.out.clear();
    c.out_sent = 0;
  }
  update_interest(fd);
}

void TcpStoreServer::close_conn(int fd, bool died) {
  auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  std::unique_ptr<Conn> c = std::move(it->second);
  conns_.erase(it);
  std::erase_if(waiters_, [&](const Waiter& w) { return w.fd == fd; });
  if (c->kind != Conn::Kind::kWatch) return;
  int rank = c->rank;
  bool report = false;
  {
    std::lock_guard lk(mu_);
    auto w = watch_fd_.find(rank);
    if (w != watch_fd_.end() && w->second == fd) watch_fd_.erase(w);
    if (died && !closing_ && !departed_.count(rank) && !dead_.count(rank)) {
      dead_.insert(rank);
      report = true;
    }
  }
  cv_.notify_all();
  c.reset();  // closes the socket before the others are told
  if (report) notify_watchers(wire::kDead, std::to_string(rank), rank);
}

void TcpStoreServer::fail_job(const std::string& why) {
  {
    std::lock_guard lk(mu_);
    if (!fatal_.empty() || closing_) return;
    fatal_ = why;
  }
  cv_.notify_all();
  notify_watchers(wire::kAbort, why, -1);
  reply_waiters(false);
}

void TcpStoreServer::notify_watchers(std::uint8_t op, const std::string& text, int except_rank) {
  std::vector<int> fds;
  for (const auto& [fd, c] : conns_)
    if (c->kind == Conn::Kind::kWatch && c->rank != except_rank) fds.push_back(fd);
  const auto bytes = wire::Writer(op).text(text).bytes();
  for (int fd : fds) send(*conns_.at(fd), bytes);
}

}  // namespace hn::stack::comm
