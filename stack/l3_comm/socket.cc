#include "stack/l3_comm/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace hn::stack::comm {

namespace {

std::chrono::milliseconds since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
}

ErrorContext with(ErrorContext ctx, const std::string& addr, Clock::time_point t0) {
  if (!addr.empty()) ctx.peer_address = addr;
  ctx.elapsed = since(t0);
  return ctx;
}

LinkError::Kind classify_connect(int err) {
  switch (err) {
    case ECONNREFUSED:
      return LinkError::Kind::kRefused;
    case ENETUNREACH:
    case EHOSTUNREACH:
    case EINVAL:  // a blackhole route answers connect() with EINVAL
    case EACCES:  // a prohibit route
    case EPERM:
      return LinkError::Kind::kNoRoute;
    case ETIMEDOUT:
      return LinkError::Kind::kTimeout;
    default:
      return LinkError::Kind::kOther;
  }
}

std::string errno_text(int err) {
  return std::string(strerror(err)) + " (errno " + std::to_string(err) + ")";
}

[[noreturn]] void throw_kind(LinkError::Kind k, const std::string& what, ErrorContext ctx) {
  if (k == LinkError::Kind::kTimeout) throw TimeoutError(what, std::move(ctx));
  throw LinkError(k, what, std::move(ctx));
}

void apply_bind(int fd, const LinkParams& p, int family, const ErrorContext& ctx,
                Clock::time_point t0) {
  if (!p.bind_interface.empty() &&
      setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, p.bind_interface.c_str(),
                 static_cast<socklen_t>(p.bind_interface.size())) != 0)
    throw LinkError(LinkError::Kind::kOther,
                    "cannot bind to interface " + p.bind_interface + ": " + errno_text(errno),
                    with(ctx, "", t0));
  if (p.bind_address.empty()) return;
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = family;
  hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
  if (getaddrinfo(p.bind_address.c_str(), "0", &hints, &res) != 0 || !res)
    throw LinkError(LinkError::Kind::kOther,
                    "bind address " + p.bind_address + " is not a " +
                        (family == AF_INET6 ? "IPv6" : "IPv4") + " address",
                    with(ctx, "", t0));
  int rc = bind(fd, res->ai_addr, res->ai_addrlen);
  int err = errno;
  freeaddrinfo(res);
  if (rc != 0)
    throw LinkError(LinkError::Kind::kOther,
                    "cannot bind to " + p.bind_address + ": " + errno_text(err), with(ctx, "", t0));
}

// try_connect's result when our deadline passed without any answer (the
// kernel's own ETIMEDOUT, SYN retries exhausted, is an errno like the others).
constexpr int kNoAnswer = -1;

// One non-blocking connect attempt; returns 0, the errno, or kNoAnswer.
int try_connect(int fd, const sockaddr* a, socklen_t len, Deadline deadline) {
  if (connect(fd, a, len) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd p{fd, POLLOUT, 0};
  for (;;) {
    int ms = ms_left(deadline);
    int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return kNoAnswer;
    int err = 0;
    socklen_t el = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
    return err;
  }
}

std::string seconds_text(Clock::duration d) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f s", std::chrono::duration<double>(d).count());
  return b;
}

}  // namespace

// getaddrinfo bounded by a deadline: a resolver that does not answer (a dead
// DNS server, 5 s per try by default) must not outlast the link-setup budget.
// The lookup runs on a thread of ours (not getaddrinfo_a, whose glibc-internal
// thread sanitizers cannot see); past the deadline the thread is detached and
// left to finish on its own, freeing its result then. Returns 0 with *res
// set, a gai error, or EAI_AGAIN when the deadline passed.
int resolve_until(const std::string& host, int port, int family, Deadline until, addrinfo** res) {
  struct Lookup {
    std::string name, service;
    addrinfo hints{};
    std::mutex m;
    std::condition_variable cv;
    bool done = false, abandoned = false;
    int rc = EAI_AGAIN;
    addrinfo* result = nullptr;
  };
  auto lk = std::make_shared<Lookup>();
  lk->name = host;
  lk->service = std::to_string(port);
  lk->hints.ai_socktype = SOCK_STREAM;
  lk->hints.ai_family = family;
  try {
    std::thread([lk] {
      addrinfo* r = nullptr;
      int rc = getaddrinfo(lk->name.c_str(), lk->service.c_str(), &lk->hints, &r);
      std::lock_guard<std::mutex> g(lk->m);
      if (lk->abandoned) {
        if (rc == 0 && r) freeaddrinfo(r);
        return;
      }
      lk->rc = rc;
      lk->result = rc == 0 ? r : nullptr;
      lk->done = true;
      lk->cv.notify_all();
    }).detach();
  } catch (const std::system_error&) {
    return getaddrinfo(host.c_str(), lk->service.c_str(), &lk->hints, res);  // no thread to spare
  }
  std::unique_lock<std::mutex> g(lk->m);
  if (!lk->cv.wait_until(g, until, [&] { return lk->done; })) {
    lk->abandoned = true;
    return EAI_AGAIN;
  }
  *res = lk->result;
  return lk->rc;
}

namespace {

// "after 5 attempt(s) in 2.51 s; gave up at the attempt limit of 5 (...)
// within a link-setup budget of 2.50 s (...)": what a failed link tried and
// which limits were in force, with where they came from.
std::string give_up_text(int attempts, Clock::time_point t0, const LinkParams& p, bool at_limit) {
  std::string s = "after " + std::to_string(attempts) + " attempt(s) in " +
                  seconds_text(Clock::now() - t0) + "; gave up at ";
  std::string limit = p.retry_count < 0
                          ? "no attempt limit (" + p.retry_source + ")"
                          : "the attempt limit of " + std::to_string(p.max_attempts()) + " (" +
                                p.retry_source + ")";
  std::string budget =
      "the link-setup budget of " + seconds_text(p.connect_timeout) + " (" + p.budget_source + ")";
  if (at_limit) return s + limit + " within " + budget;
  return s + "the end of " + budget + ", " + limit;
}

}  // namespace

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

int ms_left(Deadline d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now()).count();
  if (ms < 0) return 0;
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

std::string address_text(const sockaddr* a, socklen_t len) {
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (getnameinfo(a, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) !=
      0)
    return "?";
  return a->sa_family == AF_INET6 ? "[" + std::string(host) + "]:" + serv
                                  : std::string(host) + ":" + serv;
}

std::string local_address_of(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  return address_text(reinterpret_cast<sockaddr*>(&ss), len);
}

std::string peer_address_of(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  return address_text(reinterpret_cast<sockaddr*>(&ss), len);
}

std::string local_ip_of(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  char host[NI_MAXHOST];
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0 ||
      getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, nullptr, 0,
                  NI_NUMERICHOST) != 0)
    return "";
  return host;
}

int local_port_of(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return -1;
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
}

std::string bound_device_of(int fd) {
  char name[IFNAMSIZ + 1] = {};
  socklen_t len = sizeof name - 1;
  if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name, &len) != 0) return "";
  return std::string(name, strnlen(name, len));
}

void set_nonblocking(int fd, bool on) {
  int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Fd connect_with_retry(const std::string& host, int port, const LinkParams& params,
                      ErrorContext ctx) {
  const auto t0 = Clock::now();
  if (ctx.plane.empty()) ctx.plane = params.plane;
  ctx.budget = params.connect_timeout;
  const Deadline deadline = t0 + params.connect_timeout;
  const std::string target =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  // Resolution is retried like a refused connect: in Kubernetes a headless
  // service's record for MASTER_ADDR appears only once the pod runs, and a
  // resolver can fail transiently. A name that never resolves still ends
  // within the budget, classified as such.
  // One attempt is one resolve-and-connect: a lookup that failed counts
  // against the same attempt limit as a refused connect, and an attempt
  // gets at most one kLastAttemptWindow past the budget, however it splits.
  std::vector<std::pair<sockaddr_storage, socklen_t>> addrs;
  int attempt = 1;
  Deadline attempt_until = std::max(deadline, Clock::now() + LinkParams::kLastAttemptWindow);
  for (;; ++attempt) {
    addrinfo* res = nullptr;
    attempt_until = std::max(deadline, Clock::now() + LinkParams::kLastAttemptWindow);
    int gai = resolve_until(host, port, params.family, attempt_until, &res);
    if (gai == 0 && res) {
      for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        sockaddr_storage ss{};
        std::memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
        addrs.emplace_back(ss, ai->ai_addrlen);
      }
      freeaddrinfo(res);
      break;
    }
    if (res) freeaddrinfo(res);
    ctx.attempts = attempt;
    const bool retryable = gai == EAI_AGAIN || gai == EAI_NONAME || gai == EAI_FAIL
#ifdef EAI_NODATA
                           || gai == EAI_NODATA
#endif
        ;
    const bool at_limit = params.retry_count >= 0 && attempt >= params.max_attempts();
    const auto left = deadline - Clock::now();
    if (!retryable || at_limit || left <= Clock::duration::zero())
      throw LinkError(LinkError::Kind::kUnresolved,
                      "cannot resolve host '" + host + "': " + gai_strerror(gai) + ", " +
                          give_up_text(attempt, t0, params, at_limit),
                      with(ctx, target, t0));
    std::this_thread::sleep_for(std::min<Clock::duration>(params.retry_sleep * attempt, left));
  }

  int last_err = 0;
  std::string last_addr = target;
  for (bool first = true;; ++attempt, first = false) {
    ctx.attempts = attempt;
    bool no_answer = false;
    for (auto& [ss, len] : addrs) {
      const sockaddr* sa = reinterpret_cast<const sockaddr*>(&ss);
      last_addr = address_text(sa, len);
      Fd fd(socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      if (!fd)
        throw LinkError(LinkError::Kind::kOther, "socket(): " + errno_text(errno),
                        with(ctx, last_addr, t0));
      apply_bind(fd.get(), params, sa->sa_family, ctx, t0);
      // Bounded by the time left; an attempt made at the very end of the
      // budget still hears a refusal (link_params.h).
      // The attempt that resolved the name keeps its own window.
      const Deadline until =
          first ? attempt_until : std::max(deadline, Clock::now() + LinkParams::kLastAttemptWindow);
      last_err = try_connect(fd.get(), sa, len, until);
      if (last_err == 0) {
        set_nonblocking(fd.get(), false);
        set_nodelay(fd.get());
        return fd;
      }
      if (last_err == kNoAnswer) {
        no_answer = true;
        break;
      }
    }
    if (no_answer)
      throw TimeoutError("no answer from " + last_addr + " (packets dropped?); " +
                             give_up_text(attempt, t0, params, false),
                         with(ctx, last_addr, t0));
    // A refusal, no route, or the kernel giving up on its SYNs (ETIMEDOUT
    // before our budget): the peer may not be there yet, so try again.
    LinkError::Kind kind = classify_connect(last_err);
    bool retryable = kind == LinkError::Kind::kRefused || kind == LinkError::Kind::kNoRoute ||
                     kind == LinkError::Kind::kTimeout;
    const bool at_limit = params.retry_count >= 0 && attempt >= params.max_attempts();
    const auto left = deadline - Clock::now();
    if (!retryable || at_limit || left <= Clock::duration::zero()) {
      std::string why = kind == LinkError::Kind::kRefused   ? "nobody listens on " + last_addr
                        : kind == LinkError::Kind::kNoRoute ? "no route to " + last_addr
                        : kind == LinkError::Kind::kTimeout ? "no answer from " + last_addr
                                                            : "cannot connect to " + last_addr;
      throw_kind(kind,
                 why + ": " + errno_text(last_err) + ", " +
                     (retryable ? give_up_text(attempt, t0, params, at_limit)
                                : "after " + std::to_string(attempt) + " attempt(s)"),
                 with(ctx, last_addr, t0));
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(params.retry_sleep * attempt, left));
  }
}

Fd listen_on(const std::string& address, int port, const LinkParams& params, ErrorContext ctx) {
  const auto t0 = Clock::now();
  if (ctx.plane.empty()) ctx.plane = params.plane;
  bool v6 =
      address.find(':') != std::string::npos || (address.empty() && params.family == AF_INET6);
  Fd fd(socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd)
    throw LinkError(LinkError::Kind::kOther, "socket(): " + errno_text(errno), with(ctx, "", t0));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  LinkParams p = params;
  p.bind_address.clear();
  apply_bind(fd.get(), p, v6 ? AF_INET6 : AF_INET, ctx, t0);
  sockaddr_storage ss{};
  socklen_t len;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<uint16_t>(port));
    if (address.empty())
      a->sin6_addr = in6addr_any;
    else if (inet_pton(AF_INET6, address.c_str(), &a->sin6_addr) != 1)
      throw LinkError(LinkError::Kind::kOther, "'" + address + "' is not an IPv6 address",
                      with(ctx, "", t0));
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<uint16_t>(port));
    if (address.empty())
      a->sin_addr.s_addr = htonl(INADDR_ANY);
    else if (inet_pton(AF_INET, address.c_str(), &a->sin_addr) != 1)
      throw LinkError(LinkError::Kind::kOther, "'" + address + "' is not an IPv4 address",
                      with(ctx, "", t0));
    len = sizeof *a;
  }
  std::string where = address_text(reinterpret_cast<sockaddr*>(&ss), len);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    int err = errno;
    if (err == EADDRINUSE)
      throw LinkError(LinkError::Kind::kPortInUse,
                      "cannot listen on " + where +
                          ": the port is already in use (another job or "
                          "service holds it)",
                      with(ctx, where, t0));
    throw LinkError(LinkError::Kind::kOther, "cannot bind " + where + ": " + errno_text(err),
                    with(ctx, where, t0));
  }
  if (listen(fd.get(), SOMAXCONN) != 0)
    throw LinkError(LinkError::Kind::kOther, "listen(" + where + "): " + errno_text(errno),
                    with(ctx, where, t0));
  return fd;
}

Fd accept_until(int listen_fd, Deadline deadline, ErrorContext ctx) {
  const auto t0 = Clock::now();
  pollfd p{listen_fd, POLLIN, 0};
  for (;;) {
    int r = poll(&p, 1, ms_left(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) throw TimeoutError("no peer connected before the deadline", with(ctx, "", t0));
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      set_nodelay(fd);
      return Fd(fd);
    }
    if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
      throw LinkError(LinkError::Kind::kOther, "accept(): " + errno_text(errno), with(ctx, "", t0));
  }
}

void read_full(int fd, void* buf, std::size_t n, Deadline deadline, const ErrorContext& ctx) {
  const auto t0 = Clock::now();
  auto* p = static_cast<char*>(buf);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = recv(fd, p + got, n - got, MSG_DONTWAIT);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
      continue;
    }
    if (r == 0)
      throw PeerDiedError(ctx.peer_rank,
                          "the peer closed the connection (" + std::to_string(got) + " of " +
                              std::to_string(n) + " bytes read)",
                          with(ctx, "", t0));
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw PeerDiedError(ctx.peer_rank, "read failed: " + errno_text(errno), with(ctx, "", t0));
    pollfd pf{fd, POLLIN, 0};
    int pr = poll(&pf, 1, ms_left(deadline));
    if (pr == 0)
      throw TimeoutError("waited for " + std::to_string(n - got) + " more bytes until the deadline",
                         with(ctx, "", t0));
  }
}

void write_full(int fd, const void* buf, std::size_t n, Deadline deadline,
                const ErrorContext& ctx) {
  const auto t0 = Clock::now();
  auto* p = static_cast<const char*>(buf);
  std::size_t sent = 0;
  while (sent < n) {
    ssize_t r = send(fd, p + sent, n - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r > 0) {
      sent += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      throw PeerDiedError(ctx.peer_rank, "write failed: " + errno_text(errno), with(ctx, "", t0));
    pollfd pf{fd, POLLOUT, 0};
    if (poll(&pf, 1, ms_left(deadline)) == 0)
      throw TimeoutError(
          "could not send " + std::to_string(n - sent) + " bytes before the deadline",
          with(ctx, "", t0));
  }
}

}  // namespace hn::stack::comm
