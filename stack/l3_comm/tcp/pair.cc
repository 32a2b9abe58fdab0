#include "stack/l3_comm/tcp/pair.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace hn::stack::comm::tcp {

namespace {
// Staging for reducing receives: large enough to amortise the syscall,
// small enough to stay in L2 while it is reduced.
constexpr std::size_t kStaging = 256 << 10;
}  // namespace

TcpPair::TcpPair(int local_rank, int peer, Fd fd, std::string plane)
    : local_rank_(local_rank), peer_(peer), fd_(std::move(fd)), plane_(std::move(plane)) {
  address_ = peer_address_of(fd_.get());
  set_nonblocking(fd_.get(), true);
  set_nodelay(fd_.get());
}

void TcpPair::died(const std::string& what) const {
  ErrorContext c;
  c.local_rank = local_rank_;
  c.peer_rank = peer_;
  c.peer_address = address_;
  c.plane = plane_;
  throw PeerDiedError(peer_, "rank " + std::to_string(peer_) + " " + what, c);
}

std::size_t TcpPair::try_send(const std::byte* data, std::size_t n) {
  std::size_t sent = 0;
  while (sent < n) {
    ssize_t r = ::send(fd_.get(), data + sent, n - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r > 0) {
      sent += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    died(std::string("closed the connection while we were sending (") + strerror(errno) + ")");
  }
  return sent;
}

std::size_t TcpPair::try_recv_into(std::byte* dst, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd_.get(), dst + got, n - got, MSG_DONTWAIT);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
      continue;
    }
    if (r == 0) died("closed the connection (end of stream)");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    died(std::string("connection failed: ") + strerror(errno));
  }
  return got;
}

std::size_t TcpPair::try_recv(std::size_t n, const RecvSink& sink) {
  std::byte* staging = staging_.reserve(kStaging);
  std::size_t got = 0;
  while (got < n) {
    std::size_t r = try_recv_into(staging, std::min(n - got, kStaging));
    if (r == 0) break;
    sink(staging, r);
    got += r;
  }
  return got;
}

}  // namespace hn::stack::comm::tcp
