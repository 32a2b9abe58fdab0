#include "stack/l3_comm/tcp_store_client.h"

#include <sys/socket.h>

#include "compat/printable.h"
#include "stack/l3_comm/store_wire.h"

namespace hn::stack::comm {

namespace {
Deadline far_future() {
  return Clock::now() + std::chrono::hours(24 * 365);
}
std::chrono::milliseconds ms_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
}
}  // namespace

TcpStoreClient::TcpStoreClient(const std::string& host, int port, const LinkParams& params,
                               const Credentials& creds, int rank)
    : creds_(creds), rank_(rank) {
  ctx_.local_rank = rank;
  ctx_.peer_rank = 0;
  ctx_.plane = params.plane;
  ctx_.operation = "rendezvous";
  req_ = open_channel(host, port, params, wire::kRequests);
  watch_ = open_channel(host, port, params, wire::kWatch);
  ctx_.peer_address = peer_address_of(req_.get());
}

TcpStoreClient::~TcpStoreClient() {
  close();
}

Fd TcpStoreClient::open_channel(const std::string& host, int port, const LinkParams& params,
                                std::uint8_t kind) {
  ErrorContext ctx = ctx_;
  ctx.operation = "connect to the rendezvous";
  Fd fd = connect_authenticated(host, port, params, creds_, "store", rank_, 0, ctx);
  ctx.peer_address = peer_address_of(fd.get());
  wire::Writer(kind).send(fd.get(), Clock::now() + params.connect_timeout, ctx);
  return fd;
}

std::string TcpStoreClient::request(const std::string& what, std::uint8_t op,
                                    const std::vector<std::string>& keys, const std::string& value,
                                    std::chrono::milliseconds timeout) {
  std::lock_guard lk(mu_);
  const auto t0 = Clock::now();
  ErrorContext ctx = ctx_;
  ctx.operation = "rendezvous " + what;
  // The server answers when the keys exist or its own timer fires; allow it
  // a margin to reply before we give up on the connection itself.
  Deadline d = t0 + timeout + std::chrono::seconds(5);
  wire::Writer w(op);
  if (op == wire::kSet)
    w.text(keys[0]).text(value);
  else {
    if (op == wire::kWait) w.u32(static_cast<std::uint32_t>(keys.size()));
    for (const auto& k : keys) w.text(k);
    w.u32(static_cast<std::uint32_t>(std::min<long long>(timeout.count(), 0x7fffffff)));
  }
  w.send(req_.get(), d, ctx);
  std::uint8_t r = wire::read_op(req_.get(), d, ctx);
  ctx.elapsed = ms_since(t0);
  if (r == wire::kOk) return "";
  if (r == wire::kValue) return wire::read_text(req_.get(), d, ctx);
  if (r == wire::kFatal)
    throw AuthError(compat::printable(wire::read_text(req_.get(), d, ctx), 2000), ctx);
  if (r == wire::kMissing) {
    std::uint32_t n = wire::read_u32(req_.get(), d, ctx);
    std::string list;
    for (std::uint32_t i = 0; i < n; ++i) {
      std::string k = wire::read_text(req_.get(), d, ctx);
      if (i < 8) list += (i ? ", " : "") + k;
    }
    if (n > 8) list += ", ...";
    const std::string refused = wire::read_text(req_.get(), d, ctx);
    ctx.elapsed = ms_since(t0);
    throw TimeoutError(
        std::to_string(n) + " key(s) still missing after " + std::to_string(timeout.count()) +
            " ms: " + compat::printable(list) +
            " (a rank did not start or cannot reach the rendezvous" +
            (refused.empty() ? "" : "; the rendezvous " + compat::printable(refused, 300)) + ")",
        ctx);
  }
  throw LinkError(LinkError::Kind::kOther, "unexpected reply from the rendezvous", ctx);
}

void TcpStoreClient::set(const std::string& key, const std::string& value) {
  request("set", wire::kSet, {key}, value, std::chrono::milliseconds(0));
}

std::string TcpStoreClient::get(const std::string& key, std::chrono::milliseconds timeout) {
  return request("get", wire::kGet, {key}, "", timeout);
}

void TcpStoreClient::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  request("wait", wire::kWait, keys, "", timeout);
}

void TcpStoreClient::start_watch(EventFn on_event) {
  watcher_ = std::thread([this, on_event = std::move(on_event)] {
    ErrorContext ctx = ctx_;
    ctx.operation = "watch";
    try {
      for (;;) {
        std::uint8_t op = wire::read_op(watch_.get(), far_future(), ctx);
        std::string text = wire::read_text(watch_.get(), far_future(), ctx);
        if (op == wire::kDead) {
          on_event(std::stoi(text), "rank " + text + " died (reported by the rendezvous)");
          return;
        }
        if (op == wire::kAbort) {
          on_event(-1, text);
          return;
        }
      }
    } catch (const CommError&) {
      std::lock_guard lk(close_mu_);
      if (!closed_) on_event(0, "the rendezvous host (rank 0) went away: rank 0 died");
    }
  });
}

void TcpStoreClient::close(bool goodbye) {
  {
    std::lock_guard lk(close_mu_);
    if (closed_) return;
    closed_ = true;
  }
  if (watch_) {
    if (goodbye) try {
        wire::Writer(wire::kBye).send(watch_.get(), Clock::now() + std::chrono::seconds(1), ctx_);
      } catch (const CommError&) {
      }
    shutdown(watch_.get(), SHUT_RDWR);
  }
  if (watcher_.joinable()) watcher_.join();
  if (req_) shutdown(req_.get(), SHUT_RDWR);
}

}  // namespace hn::stack::comm
