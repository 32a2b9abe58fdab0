#include "tests/support/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <stdexcept>

namespace hn::test {

namespace {

// The first port of the ephemeral range; 32768 when it cannot be read.
int ephemeral_low() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int lo = 0, hi = 0;
  if (in >> lo >> hi && lo > 0) return lo;
  return 32768;
}

bool bindable(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);  // the rendezvous listens on every address
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

int free_loopback_port() {
  const int lo = 10000, hi = ephemeral_low();
  if (hi - lo < 1000)
    throw std::runtime_error("the ephemeral port range starts at " + std::to_string(hi) +
                             ": too little room below it for test ports");
  std::random_device rd;
  std::uniform_int_distribution<int> pick(lo, hi - 1);
  for (int i = 0; i < 200; ++i) {
    const int port = pick(rd);
    if (bindable(port)) return port;
  }
  throw std::runtime_error("no free test port found below " + std::to_string(hi));
}

std::string free_loopback_rendezvous() {
  return "127.0.0.1:" + std::to_string(free_loopback_port());
}

ClosedPort::ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (fd_ < 0) throw std::runtime_error("ClosedPort: socket() failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd_);
    throw std::runtime_error("ClosedPort: cannot bind a loopback port");
  }
  port_ = ntohs(a.sin_port);
}

ClosedPort::~ClosedPort() {
  ::close(fd_);
}

}  // namespace hn::test
