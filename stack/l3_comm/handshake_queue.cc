#include "stack/l3_comm/handshake_queue.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace hn::stack::comm {

void RejectionLog::set_sink(Sink sink) {
  std::lock_guard lk(mu_);
  sink_ = std::move(sink);
}

void RejectionLog::note(const std::string& where, const std::string& address,
                        const std::string& reason) {
  Sink sink;
  std::string line;
  {
    std::lock_guard lk(mu_);
    ++total_;
    latest_brief_ = (address.empty() ? "a connection" : address) + ": " + reason;
    line = where + " refused " + (address.empty() ? "a connection" : address) + ": " + reason;
    if (first_.size() < kKept / 2)
      first_.push_back(line);
    else {
      latest_.push_back(line);
      if (latest_.size() > kKept / 2) latest_.erase(latest_.begin());
    }
    if (total_ <= kReported)
      sink = sink_;
    else if (total_ % kReportEvery == 0) {
      sink = sink_;
      line = where + " has refused " + std::to_string(total_) +
             " connections so far; the latest: " + line;
    }
  }
  if (sink) sink(line);
}

std::size_t RejectionLog::total() const {
  std::lock_guard lk(mu_);
  return total_;
}

std::vector<std::string> RejectionLog::kept() const {
  std::lock_guard lk(mu_);
  std::vector<std::string> out = first_;
  out.insert(out.end(), latest_.begin(), latest_.end());
  return out;
}

std::string RejectionLog::summary() const {
  std::lock_guard lk(mu_);
  if (total_ == 0) return "";
  return "refused " + std::to_string(total_) + " connection(s), the latest from " + latest_brief_;
}

HandshakeQueue::HandshakeQueue(const Credentials& creds, int my_rank, std::string channel,
                               std::chrono::milliseconds timeout, std::size_t max_pending,
                               RejectionLog& log, std::string where)
    : creds_(creds),
      my_rank_(my_rank),
      channel_(std::move(channel)),
      timeout_(timeout),
      max_pending_(max_pending),
      log_(log),
      where_(std::move(where)) {}

HandshakeQueue::~HandshakeQueue() = default;

std::vector<int> HandshakeQueue::accept_from(int listen_fd, std::size_t burst) {
  std::vector<int> added;
  for (std::size_t k = 0; k < burst; ++k) {
    const auto now = Clock::now();
    if (accept_paused(now)) break;
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Free a descriptor by dropping the oldest stranger; with nobody to
        // drop, let the kernel hold the backlog for a while.
        if (drop_oldest("dropped: this process ran out of file descriptors")) continue;
        resume_accept_ = now + kAcceptBackoff;
      }
      break;  // EAGAIN: nothing more to accept
    }
    set_nodelay(fd);
    if (pending_.size() >= max_pending_)
      drop_oldest("dropped to make room: " + std::to_string(max_pending_) +
                  " handshakes were pending");
    Entry e{Fd(fd), nullptr, now + timeout_, peer_address_of(fd), seq_++};
    e.hs = std::make_unique<AcceptorHandshake>(fd, creds_, my_rank_, channel_);
    pending_.emplace(fd, std::move(e));
    added.push_back(fd);
    advance(fd);
  }
  return added;
}

void HandshakeQueue::advance(int fd) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return;
  if (it->second.hs->advance() != AcceptorHandshake::State::kPending) finish(fd);
}

void HandshakeQueue::finish(int fd) {
  auto it = pending_.find(fd);
  Entry& e = it->second;
  Done d;
  d.state = e.hs->state();
  d.hello = e.hs->hello();
  d.address = e.address;
  d.reason = e.hs->reason();
  d.own_job = e.hs->own_job();
  if (d.state == AcceptorHandshake::State::kAuthenticated) {
    d.fd = std::move(e.fd);
  } else {
    log_.note(where_, d.address, d.reason);
  }
  pending_.erase(it);
  done_.push_back(std::move(d));
}

void HandshakeQueue::drop(int fd, const std::string& why) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return;
  log_.note(where_, it->second.address, why);
  Done d;
  d.state = AcceptorHandshake::State::kRefused;
  d.address = it->second.address;
  d.reason = why;
  pending_.erase(it);
  done_.push_back(std::move(d));
}

bool HandshakeQueue::drop_oldest(const std::string& why) {
  // The oldest connection that has not said a word, else the oldest: a real
  // rank answers the challenge at once (and retries if it is dropped anyway).
  auto pick = pending_.end();
  for (bool idle_only : {true, false}) {
    for (auto it = pending_.begin(); it != pending_.end(); ++it)
      if ((!idle_only || !it->second.hs->heard()) &&
          (pick == pending_.end() || it->second.seq < pick->second.seq))
        pick = it;
    if (pick != pending_.end()) break;
  }
  if (pick == pending_.end()) return false;
  drop(pick->first, why);
  return true;
}

void HandshakeQueue::expire(Clock::time_point now) {
  std::vector<int> late;
  for (const auto& [fd, e] : pending_)
    if (e.deadline <= now) late.push_back(fd);
  for (int fd : late)
    drop(fd, "no complete handshake within " + std::to_string(timeout_.count()) + " ms");
}

std::vector<HandshakeQueue::Done> HandshakeQueue::take() {
  std::vector<Done> out;
  out.swap(done_);
  return out;
}

bool HandshakeQueue::wants_write(int fd) const {
  auto it = pending_.find(fd);
  return it != pending_.end() && it->second.hs->wants_write();
}

std::vector<int> HandshakeQueue::pending_fds() const {
  std::vector<int> out;
  for (const auto& [fd, e] : pending_) out.push_back(fd);
  return out;
}

Clock::time_point HandshakeQueue::next_event() const {
  auto t = Clock::time_point::max();
  for (const auto& [fd, e] : pending_) t = std::min(t, e.deadline);
  if (resume_accept_ > Clock::now()) t = std::min(t, resume_accept_);
  return t;
}

}  // namespace hn::stack::comm
