#include "drivers/cluster/link_mesh.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include "drivers/cluster/link_pattern.h"
#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/link_acceptor.h"

namespace hn::drivers::cluster {

namespace {

using comm::Clock;
using std::chrono::milliseconds;

constexpr const char* kChannel = "certify-link";
constexpr std::size_t kFrame = 256 << 10;
constexpr std::uint32_t kReadyMagic = 0x52445931;  // "RDY1"
constexpr std::uint32_t kDoneMagic = 0x444e4531;   // "DNE1"

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

long long ms_of(milliseconds d) {
  return static_cast<long long>(d.count());
}

struct PeerAddress {
  std::string ip;
  int port = 0;
  std::string unbound;  // the peer's "!reason"
};

std::string addr_text(const std::string& ip, int port) {
  return (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
}

// "ip|port|nic" or "!reason".
PeerAddress parse_address(const std::string& v) {
  PeerAddress a;
  if (!v.empty() && v[0] == '!') {
    a.unbound = v.substr(1);
    return a;
  }
  auto bar = v.find('|');
  auto bar2 = v.find('|', bar + 1);
  a.ip = v.substr(0, bar);
  a.port = std::stoi(v.substr(bar + 1, bar2 - bar - 1));
  return a;
}

void record_error(LinkOutcome& o, const comm::LinkError& e) {
  o.status = link_status_name(e.kind());
  o.detail = e.detail();
  o.attempts = e.context().attempts;
  o.budget_ms = e.context().budget.count();
  o.elapsed_ms = e.context().elapsed.count();
}

}  // namespace

std::string link_status_name(comm::LinkError::Kind kind) {
  using K = comm::LinkError::Kind;
  switch (kind) {
    case K::kRefused:
      return "refused";
    case K::kTimeout:
      return "timeout";
    case K::kNoRoute:
      return "no_route";
    case K::kAuthMismatch:
      return "auth";
    default:
      return "failed";
  }
}

LinkMesh::~LinkMesh() = default;

std::unique_ptr<LinkMesh> LinkMesh::build(const MeshSetup& s) {
  std::unique_ptr<LinkMesh> m(new LinkMesh);
  m->rank_ = s.rank;
  m->world_ = s.world;
  m->bind_ = s.bind;
  comm::Store& store = *s.store;
  const auto peers = link_peers(s.rank, s.world);
  std::vector<int> lower, higher;
  for (int p : peers) (p < s.rank ? lower : higher).push_back(p);

  comm::LinkParams lp = s.params;
  lp.bind_address = s.bind.address;
  lp.bind_interface = s.bind_device ? s.bind.nic : "";
  comm::ErrorContext ctx;
  ctx.local_rank = s.rank;
  ctx.plane = lp.plane;
  ctx.operation = "certify link setup";

  comm::Fd listener;
  std::string published;
  if (m->bind_.error.empty()) {
    try {
      listener = comm::listen_on(s.bind.address, 0, lp, ctx);
      published = s.bind.address + "|" + std::to_string(comm::local_port_of(listener.get())) + "|" +
                  s.bind.nic;
    } catch (const comm::LinkError& e) {
      m->bind_.error =
          "cannot listen on " + s.bind.address + " (" + s.bind.nic + "): " + e.detail();
    }
  }
  if (!m->bind_.error.empty()) published = "!" + m->bind_.error;
  store.set(s.prefix + "/addr/" + std::to_string(s.rank), published);

  // The higher peers' addresses, fetched here so that the connecting threads
  // never hold the store: a rank that never publishes costs one budget.
  const auto address_deadline = std::min(s.deadline, Clock::now() + lp.connect_timeout);
  std::map<int, PeerAddress> addresses;
  std::map<int, std::string> missing;
  for (int p : higher) {
    auto left = std::chrono::ceil<milliseconds>(address_deadline - Clock::now());
    try {
      addresses[p] = parse_address(
          store.get(s.prefix + "/addr/" + std::to_string(p), std::max(left, milliseconds(0))));
    } catch (const comm::TimeoutError&) {
      missing[p] = "rank " + std::to_string(p) + " did not publish its plane address within " +
                   std::to_string(ms_of(lp.connect_timeout)) + " ms";
    }
  }

  // Accept the lower peers while connecting to the higher ones.
  std::map<int, comm::Fd> accepted;
  std::thread acceptor([&] {
    if (!listener || lower.empty()) return;
    comm::ErrorContext actx = ctx;
    actx.operation = "certify link setup (accepting lower ranks)";
    // Strangers are turned away by the handshake queue; a lower peer that
    // failed records its own outcome, so its refusals are not reported here.
    comm::RejectionLog refused;
    comm::AcceptUntil until;
    until.partial = true;
    until.given_up = [&](const std::set<int>& waiting) {
      std::set<int> tried;  // published that it tried and failed (its outcome says why)
      for (int r : waiting) try {
          store.get(s.prefix + "/tried/" + std::to_string(r), milliseconds(0));
          tried.insert(r);
        } catch (const comm::TimeoutError&) {
        }
      return tried;
    };
    try {
      accepted = comm::accept_peer_links(listener.get(), s.creds, s.rank,
                                         std::set<int>(lower.begin(), lower.end()), s.deadline,
                                         lp.connect_timeout, refused, actx, kChannel, until);
    } catch (const comm::CommError&) {
      // The listener or the store failed: the connecting sides record their
      // own failures, and the store's shows again on the calling thread.
    }
  });

  std::vector<std::future<std::pair<LinkOutcome, comm::Fd>>> connects;
  for (int p : higher) {
    connects.push_back(std::async(std::launch::async, [&, p] {
      LinkOutcome o;
      o.from = s.rank;
      o.to = p;
      o.from_address = s.bind.address;
      comm::Fd fd;
      if (!m->bind_.error.empty()) {
        o.status = "unbound";
        o.detail = m->bind_.error;
        return std::make_pair(o, std::move(fd));
      }
      if (auto it = missing.find(p); it != missing.end()) {
        o.status = "failed";
        o.detail = it->second;
        return std::make_pair(o, std::move(fd));
      }
      const PeerAddress& a = addresses.at(p);
      if (!a.unbound.empty()) {
        o.status = "peer_unbound";
        o.detail = a.unbound;
        return std::make_pair(o, std::move(fd));
      }
      o.to_address = addr_text(a.ip, a.port);
      comm::ErrorContext c = ctx;
      c.peer_rank = p;
      c.peer_address = o.to_address;
      const auto t0 = Clock::now();
      try {
        fd = comm::connect_with_retry(a.ip, a.port, lp, c);
        o.from_address = comm::local_address_of(fd.get());
        comm::authenticate(fd.get(), s.creds, kChannel, s.rank, p,
                           Clock::now() + lp.connect_timeout, c);
        o.status = "ok";
        o.connect_ms = ms_since(t0);
      } catch (const comm::LinkError& e) {
        record_error(o, e);
        if (o.elapsed_ms == 0) o.elapsed_ms = static_cast<long long>(ms_since(t0));
        fd = comm::Fd();
      }
      return std::make_pair(o, std::move(fd));
    }));
  }
  for (auto& f : connects) {
    auto [o, fd] = f.get();
    if (fd) m->socks_[o.to] = std::move(fd);
    m->outcomes_.push_back(std::move(o));
  }
  store.set(s.prefix + "/tried/" + std::to_string(s.rank), "1");
  acceptor.join();
  for (auto& [p, fd] : accepted) m->socks_[p] = std::move(fd);
  return m;
}

std::string LinkMesh::peer_address(int peer) const {
  auto it = socks_.find(peer);
  return it == socks_.end() ? "" : comm::peer_address_of(it->second.get());
}

Exchange LinkMesh::exchange(int peer, std::uint32_t tag, bool send, milliseconds duration,
                            comm::Deadline deadline, const std::function<void()>& before,
                            const std::function<void()>& after) {
  Exchange x;
  x.peer = peer;
  if (auto b = broken_.find(peer); b != broken_.end()) {
    x.error = "the link was closed by an earlier failure: " + b->second;
    return x;
  }
  auto it = socks_.find(peer);
  if (it == socks_.end()) {
    x.error = "no link to rank " + std::to_string(peer);
    return x;
  }
  const int fd = it->second.get();
  // Keep little unsent data queued: the round ends when the last byte
  // arrives, and a full send buffer draining through a slow link (4 MiB at
  // 10 MB/s is 0.4 s) would stretch every round past its duration. Bytes in
  // flight are not limited by this, so a fast link still fills its pipe.
  const int lowat = 256 * 1024;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
  comm::ErrorContext c;
  c.local_rank = rank_;
  c.peer_rank = peer;
  c.operation = "certify link bandwidth";
  // Tokens: a magic word and the round's tag, so two ends out of step fail
  // naming the rounds instead of reading frames as tokens.
  auto token = [&](std::uint32_t magic, const char* what) {
    const std::uint32_t mine[2] = {magic, tag};
    comm::write_full(fd, mine, sizeof mine, deadline, c);
    std::uint32_t theirs[2] = {0, 0};
    comm::read_full(fd, theirs, sizeof theirs, deadline, c);
    if (theirs[0] != magic || theirs[1] != tag)
      throw comm::LinkError(comm::LinkError::Kind::kOther,
                            std::string("out of step at the ") + what + " token of round " +
                                std::to_string(tag) + " (the peer sent word " +
                                std::to_string(theirs[0]) + ", round " + std::to_string(theirs[1]) +
                                ")",
                            c);
  };
  try {
    if (before) before();
    token(kReadyMagic, "ready");
    std::string send_error;
    std::thread sender([&] {
      try {
        if (send) {
          std::vector<char> frame(kFrame + 4, 'h');
          const std::uint32_t len = kFrame;
          std::memcpy(frame.data(), &len, 4);
          const auto stop = Clock::now() + duration;
          while (Clock::now() < stop) {
            comm::write_full(fd, frame.data(), frame.size(), deadline, c);
            x.sent += kFrame;
          }
        }
        const std::uint32_t end = 0;
        comm::write_full(fd, &end, 4, deadline, c);
      } catch (const comm::CommError& e) {
        send_error = e.detail();
      }
    });
    try {
      std::vector<char> buf(kFrame);
      Clock::time_point first{}, last{};
      for (;;) {
        std::uint32_t len = 0;
        comm::read_full(fd, &len, 4, deadline, c);
        if (len == 0) break;
        if (first == Clock::time_point{}) first = Clock::now();
        if (len > kFrame)
          throw comm::LinkError(comm::LinkError::Kind::kOther,
                                "a frame of " + std::to_string(len) + " bytes (at most " +
                                    std::to_string(kFrame) + ")",
                                c);
        comm::read_full(fd, buf.data(), len, deadline, c);
        x.received += len;
        last = Clock::now();
      }
      const double s = std::chrono::duration<double>(last - first).count();
      if (x.received > 0 && s > 0) x.rx_gbps = static_cast<double>(x.received) / s / 1e9;
    } catch (...) {
      ::shutdown(fd, SHUT_RDWR);  // unblocks the sender
      sender.join();
      throw;
    }
    sender.join();
    if (!send_error.empty())
      throw comm::LinkError(comm::LinkError::Kind::kOther, "sending: " + send_error, c);
    token(kDoneMagic, "done");
    if (after) after();
  } catch (const comm::CommError& e) {
    x.error = e.detail();
    x.rx_gbps = 0;
    broken_[peer] = x.error;
    socks_.erase(peer);  // the peer's next read fails at once
  }
  return x;
}

}  // namespace hn::drivers::cluster
