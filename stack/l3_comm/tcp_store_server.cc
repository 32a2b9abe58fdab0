#include "stack/l3_comm/tcp_store_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stack/l3_comm/store_wire.h"

namespace hn::stack::comm {

namespace {
Deadline far_future() {
  return Clock::now() + std::chrono::hours(24 * 365);
}
}  // namespace

TcpStoreServer::TcpStoreServer(Fd listen_fd, Credentials creds,
                               std::chrono::milliseconds handshake_timeout, std::string plane)
    : listen_fd_(std::move(listen_fd)),
      creds_(std::move(creds)),
      handshake_timeout_(handshake_timeout),
      plane_(std::move(plane)) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) throw LinkError(LinkError::Kind::kOther, "pipe2 failed", {});
  wake_[0].reset(p[0]);
  wake_[1].reset(p[1]);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpStoreServer::~TcpStoreServer() {
  {
    std::lock_guard lk(mu_);
    closing_ = true;
    for (int fd : conn_fds_) shutdown(fd, SHUT_RDWR);
  }
  cv_.notify_all();
  char c = 1;
  (void)!write(wake_[1].get(), &c, 1);
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lk(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

int TcpStoreServer::port() const {
  return local_port_of(listen_fd_.get());
}

std::vector<std::string> TcpStoreServer::rejections() const {
  std::lock_guard lk(mu_);
  return rejections_;
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

void TcpStoreServer::accept_loop() {
  pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {wake_[0].get(), POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int fd = accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    set_nodelay(fd);
    std::lock_guard lk(mu_);
    if (closing_) {
      close(fd);
      return;
    }
    conn_fds_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void TcpStoreServer::fail_job(const std::string& why) {
  // Caller holds mu_.
  if (!fatal_.empty() || closing_) return;
  fatal_ = why;
  cv_.notify_all();
  notify_watchers(wire::kAbort, fatal_, -1);
}

void TcpStoreServer::notify_watchers(std::uint8_t op, const std::string& text, int except_rank) {
  // Caller holds mu_. A watcher that cannot take 1 s of writes is dead anyway.
  for (auto& [r, wfd] : watch_fd_) {
    if (r == except_rank) continue;
    try {
      ErrorContext c;
      c.peer_rank = r;
      wire::Writer(op).text(text).send(wfd, Clock::now() + std::chrono::seconds(1), c);
    } catch (const CommError&) {
    }
  }
}

void TcpStoreServer::on_death(int rank) {
  std::lock_guard lk(mu_);
  if (closing_ || departed_.count(rank) || dead_.count(rank)) return;
  dead_.insert(rank);
  cv_.notify_all();
  notify_watchers(wire::kDead, std::to_string(rank), rank);
}

void TcpStoreServer::serve(int fd) {
  ErrorContext ctx;
  ctx.local_rank = 0;
  ctx.plane = plane_;
  ctx.operation = "rendezvous server";
  ctx.peer_address = peer_address_of(fd);
  try {
    PeerHello hello =
        authenticate(fd, creds_, "store", 0, -1, Clock::now() + handshake_timeout_, ctx);
    ctx.peer_rank = hello.rank;
    std::uint8_t kind = wire::read_op(fd, Clock::now() + handshake_timeout_, ctx);
    if (kind == wire::kWatch)
      serve_watch(fd, hello.rank, ctx);
    else if (kind == wire::kRequests)
      serve_requests(fd, hello.rank, ctx);
  } catch (const AuthError& e) {
    std::lock_guard lk(mu_);
    rejections_.push_back(e.what());
    if (!formed_)
      fail_job("the rendezvous turned a connection away while the job was forming: " + e.detail() +
               " (from " + ctx.peer_address + ")");
  } catch (const CommError&) {
    // A store channel that broke mid-request; deaths are reported by watch channels.
  }
  std::lock_guard lk(mu_);
  for (auto it = watch_fd_.begin(); it != watch_fd_.end(); ++it)
    if (it->second == fd) {
      watch_fd_.erase(it);
      break;
    }
  std::erase(conn_fds_, fd);
  close(fd);
}

void TcpStoreServer::serve_watch(int fd, int rank, const ErrorContext& ctx) {
  {
    std::lock_guard lk(mu_);
    watch_fd_[rank] = fd;
    joined_.insert(rank);
    cv_.notify_all();
    if (static_cast<int>(joined_.size()) == creds_.world) formed_ = true;
    ErrorContext c = ctx;
    // A rank joining late learns what already happened.
    if (!fatal_.empty())
      wire::Writer(wire::kAbort).text(fatal_).send(fd, Clock::now() + std::chrono::seconds(1), c);
    for (int d : dead_)
      wire::Writer(wire::kDead)
          .text(std::to_string(d))
          .send(fd, Clock::now() + std::chrono::seconds(1), c);
  }
  try {
    std::uint8_t op = wire::read_op(fd, far_future(), ctx);
    if (op == wire::kBye) {
      std::lock_guard lk(mu_);
      departed_.insert(rank);
      cv_.notify_all();
      return;
    }
  } catch (const CommError&) {
  }
  on_death(rank);
}

void TcpStoreServer::serve_requests(int fd, int rank, const ErrorContext& ctx) {
  (void)rank;
  for (;;) {
    std::uint8_t op = wire::read_op(fd, far_future(), ctx);
    Deadline reply_by = Clock::now() + std::chrono::seconds(10);
    if (op == wire::kSet) {
      std::string key = wire::read_text(fd, reply_by, ctx),
                  value = wire::read_text(fd, reply_by, ctx);
      {
        std::lock_guard lk(mu_);
        kv_[key] = std::move(value);
      }
      cv_.notify_all();
      wire::Writer(wire::kOk).send(fd, reply_by, ctx);
      continue;
    }
    if (op != wire::kGet && op != wire::kWait)
      throw LinkError(LinkError::Kind::kOther, "unknown store request", ctx);
    std::uint32_t nkeys = op == wire::kGet ? 1 : wire::read_u32(fd, reply_by, ctx);
    std::vector<std::string> keys;
    for (std::uint32_t i = 0; i < nkeys && i < 1000000; ++i)
      keys.push_back(wire::read_text(fd, reply_by, ctx));
    std::uint32_t timeout_ms = wire::read_u32(fd, reply_by, ctx);
    std::unique_lock lk(mu_);
    auto missing = [&] {
      std::vector<std::string> m;
      for (const auto& k : keys)
        if (!kv_.count(k)) m.push_back(k);
      return m;
    };
    cv_.wait_until(lk, Clock::now() + std::chrono::milliseconds(timeout_ms),
                   [&] { return closing_ || !fatal_.empty() || missing().empty(); });
    if (closing_) return;
    wire::Writer reply(wire::kOk);
    if (!fatal_.empty()) {
      reply = wire::Writer(wire::kFatal);
      reply.text(fatal_);
    } else if (auto m = missing(); !m.empty()) {
      reply = wire::Writer(wire::kMissing);
      reply.u32(static_cast<std::uint32_t>(m.size()));
      for (const auto& k : m) reply.text(k);
    } else if (op == wire::kGet) {
      reply = wire::Writer(wire::kValue);
      reply.text(kv_[keys[0]]);
    }
    lk.unlock();
    reply.send(fd, Clock::now() + std::chrono::seconds(10), ctx);
  }
}

}  // namespace hn::stack::comm
