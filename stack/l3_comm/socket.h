#pragma once
// Sockets for the store and the TCP transport: an owning fd, connect with the
// LinkParams retry/backoff policy and classified failures, listen with
// "port in use" named, and deadline-bound reads and writes. Every failure is
// a LinkError subclass carrying the ErrorContext it was given, completed with
// the address and the elapsed time. Nothing here blocks past its deadline.

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/link_params.h"

namespace hn::stack::comm {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Milliseconds left until d, clamped to [0, INT_MAX] for poll().
int ms_left(Deadline d);

// "1.2.3.4:80" / "[::1]:80"
std::string address_text(const sockaddr* a, socklen_t len);
std::string local_address_of(int fd);  // getsockname as text
std::string peer_address_of(int fd);   // getpeername as text
std::string local_ip_of(int fd);       // getsockname, IP only
int local_port_of(int fd);
std::string bound_device_of(int fd);  // SO_BINDTODEVICE's NIC, "" when not bound to one

// getaddrinfo(host, port) for SOCK_STREAM in `family`, bounded by `until`
// (the lookup runs on a thread of its own, abandoned at the deadline): 0 with
// *res set (freeaddrinfo it), a gai error, or EAI_AGAIN at the deadline.
int resolve_until(const std::string& host, int port, int family, Deadline until, addrinfo** res);

// Connects to host:port under params (bind address/interface, family):
// attempts with linear backoff after a refusal, no route, or the kernel's own
// SYN timeout, until the attempt limit (retry_count + 1) or the budget
// (connect_timeout), whichever comes first (link_params.h). The returned
// socket is blocking with TCP_NODELAY set. Throws LinkError (kRefused,
// kNoRoute, kOther) or TimeoutError (no answer within the budget); the
// message names the attempts made, the time spent, the limit that ended it
// and both limits' sources; context().attempts and .budget carry them too.
// Returns or throws no later than connect_timeout + kLastAttemptWindow
// (plus scheduling delay).
Fd connect_with_retry(const std::string& host, int port, const LinkParams& params,
                      ErrorContext ctx);

// A listening socket on address:port ("" = any IPv4 address, or any IPv6
// address when params.family is AF_INET6; port 0 = the kernel picks); SO_BINDTODEVICE when
// params.bind_interface is set. Throws LinkError kPortInUse when the port is taken, kOther
// otherwise.
Fd listen_on(const std::string& address, int port, const LinkParams& params, ErrorContext ctx);

// Waits for one connection until the deadline; throws TimeoutError.
Fd accept_until(int listen_fd, Deadline deadline, ErrorContext ctx);

// Reads/writes exactly n bytes before the deadline. A closed or reset peer
// throws PeerDiedError(ctx.peer_rank); the deadline throws TimeoutError.
void read_full(int fd, void* buf, std::size_t n, Deadline deadline, const ErrorContext& ctx);
void write_full(int fd, const void* buf, std::size_t n, Deadline deadline, const ErrorContext& ctx);

void set_nonblocking(int fd, bool on);
void set_nodelay(int fd);

}  // namespace hn::stack::comm
