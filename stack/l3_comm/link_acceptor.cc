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
                                    ErrorContext ctx, const std::string& channel,
                                    const AcceptUntil& until) {
  const auto t0 = Clock::now();
  set_nonblocking(listen_fd, true);
  const std::string where = "the peer-link listener of rank " + std::to_string(my_rank);
  HandshakeQueue queue(creds, my_rank, channel, handshake_timeout, kMaxPendingLinks, log, where);
  std::map<int, Fd> links;
  std::vector<pollfd> fds;
  // A peer that gave up may still be finishing a handshake it started
  // (its last bytes in flight when it said so): such a link is still taken,
  // and the wait ends only when no handshake is pending.
  const std::set<int> wanted = expected;
  bool drain = false;  // a peer gave up: finish the handshakes in flight
  auto next_check = t0;
  while (!expected.empty() || (drain && !queue.pending_fds().empty())) {
    auto now = Clock::now();
    if (until.given_up && now >= next_check && !expected.empty()) {
      for (int r : until.given_up(expected)) drain = expected.erase(r) > 0 || drain;
      now = Clock::now();
      next_check = now + until.recheck;
      if (expected.empty() && queue.pending_fds().empty()) break;
    }
    if (now >= deadline) {
      if (until.partial) break;
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
    auto wake = std::min(deadline, queue.next_event());
    if (until.given_up && !expected.empty()) wake = std::min(wake, next_check);
    if (poll(fds.data(), fds.size(), std::max(ms_left(wake), 1)) < 0 && errno != EINTR)
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
      if (d.state == AcceptorHandshake::State::kMismatch && d.own_job) {
        if (!until.partial) throw AuthError(d.reason, c);
        log.note(where, d.address, d.reason);
        continue;
      }
      if (d.state != AcceptorHandshake::State::kAuthenticated) continue;  // a stranger: logged
      c.peer_rank = d.hello.rank;
      if (!wanted.count(d.hello.rank) || links.count(d.hello.rank)) {
        const std::string what =
            "rank " + std::to_string(d.hello.rank) +
            (links.count(d.hello.rank) ? " connected twice"
                                       : " connected, but only higher ranks should");
        if (!until.partial) throw AuthError(what, c);
        log.note(where, d.address, what);
        continue;
      }
      expected.erase(d.hello.rank);
      set_nonblocking(d.fd.get(), false);
      links.emplace(d.hello.rank, std::move(d.fd));
    }
  }
  return links;
}

}  // namespace hn::stack::comm
