#include "stack/l3_comm/link_acceptor.h"

#include <poll.h>

#include <cerrno>

namespace hn::stack::comm {

namespace {

// A peer-link listener expects at most world - 1 connections; this many
// concurrent strangers is plenty to keep the real ones flowing.
constexpr std::size_t kMaxPendingLinks = 64;

std::string rank_list(const std::set<int>& ranks) {
  std::string s;
  std::size_t shown = 0;
  for (int r : ranks) {
    if (shown++ == 8) {
      s += ", ...";
      break;
    }
    s += (s.empty() ? "" : ", ") + std::to_string(r);
  }
  return s;
}

}  // namespace

std::map<int, Fd> accept_peer_links(int listen_fd, const Credentials& creds, int my_rank,
                                    std::set<int> expected, Deadline deadline,
                                    std::chrono::milliseconds handshake_timeout, RejectionLog& log,
                                    ErrorContext ctx) {
  const auto t0 = Clock::now();
  set_nonblocking(listen_fd, true);
  HandshakeQueue queue(creds, my_rank, "peer", handshake_timeout, kMaxPendingLinks, log,
                       "the peer-link listener of rank " + std::to_string(my_rank));
  std::map<int, Fd> links;
  std::vector<pollfd> fds;
  while (!expected.empty()) {
    const auto now = Clock::now();
    if (now >= deadline) {
      ctx.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0);
      const std::string refused = log.summary();
      throw TimeoutError("rank(s) " + rank_list(expected) + " did not connect before the deadline" +
                             (refused.empty() ? "" : " (this listener " + refused + ")"),
                         ctx);
    }
    fds.clear();
    const bool accepting = !queue.accept_paused(now);
    if (accepting) fds.push_back({listen_fd, POLLIN, 0});
    for (int fd : queue.pending_fds())
      fds.push_back({fd, static_cast<short>(POLLIN | (queue.wants_write(fd) ? POLLOUT : 0)), 0});
    const int wait = ms_left(std::min(deadline, queue.next_event()));
    if (poll(fds.data(), fds.size(), std::max(wait, 1)) < 0 && errno != EINTR)
      throw LinkError(LinkError::Kind::kOther, "poll on the peer-link listener failed", ctx);
    for (const auto& p : fds) {
      if (!p.revents) continue;
      if (p.fd == listen_fd && accepting)
        queue.accept_from(listen_fd);
      else
        queue.advance(p.fd);
    }
    queue.expire(Clock::now());
    for (auto& d : queue.take()) {
      ErrorContext c = ctx;
      c.peer_address = d.address;
      if (d.state == AcceptorHandshake::State::kMismatch && d.own_job) throw AuthError(d.reason, c);
      if (d.state != AcceptorHandshake::State::kAuthenticated) continue;  // a stranger: logged
      c.peer_rank = d.hello.rank;
      if (!expected.count(d.hello.rank))
        throw AuthError(
            "rank " + std::to_string(d.hello.rank) +
                (links.count(d.hello.rank) ? " connected twice"
                                           : " connected, but only higher ranks should"),
            c);
      expected.erase(d.hello.rank);
      set_nonblocking(d.fd.get(), false);
      links.emplace(d.hello.rank, std::move(d.fd));
    }
  }
  return links;
}

}  // namespace hn::stack::comm
