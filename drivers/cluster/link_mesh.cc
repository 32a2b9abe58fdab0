#include "drivers/cluster/link_mesh.h"

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
  lp.bind_interface = s.bind.nic;
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

std::optional<LinkRate> LinkMesh::bandwidth_round(int distance, milliseconds duration,
                                                  comm::Deadline deadline) {
  if (world_ < 2 || distance <= 0 || distance >= world_) return std::nullopt;
  const int to = (rank_ + distance) % world_;
  const int from = (rank_ - distance % world_ + world_) % world_;
  comm::ErrorContext ctx;
  ctx.local_rank = rank_;
  ctx.operation = "certify link bandwidth";
  // Sender: frames for `duration`, then the end frame.
  std::string send_error;
  std::thread sender([&] {
    auto it = socks_.find(to);
    if (it == socks_.end()) return;
    comm::ErrorContext c = ctx;
    c.peer_rank = to;
    std::vector<char> frame(kFrame + 4, 'h');
    const std::uint32_t len = kFrame;
    std::memcpy(frame.data(), &len, 4);
    const auto stop = Clock::now() + duration;
    try {
      while (Clock::now() < stop)
        comm::write_full(it->second.get(), frame.data(), frame.size(), deadline, c);
      const std::uint32_t end = 0;
      comm::write_full(it->second.get(), &end, 4, deadline, c);
    } catch (const comm::CommError& e) {
      send_error = e.detail();
    }
  });
  LinkRate rate;
  rate.from = from;
  rate.to = rank_;
  bool recv_broken = false;
  auto it = socks_.find(from);
  if (it == socks_.end()) {
    rate.error = "no link from rank " + std::to_string(from);
  } else {
    comm::ErrorContext c = ctx;
    c.peer_rank = from;
    std::vector<char> buf(kFrame);
    Clock::time_point first{}, last{};
    try {
      for (;;) {
        std::uint32_t len = 0;
        comm::read_full(it->second.get(), &len, 4, deadline, c);
        if (first == Clock::time_point{}) first = Clock::now();
        if (len == 0) break;
        if (len > kFrame) throw comm::LinkError(comm::LinkError::Kind::kOther, "bad frame", c);
        comm::read_full(it->second.get(), buf.data(), len, deadline, c);
        rate.bytes += len;
        last = Clock::now();
      }
      double s = std::chrono::duration<double>(last - first).count();
      rate.gbps = s > 0 ? static_cast<double>(rate.bytes) / s / 1e9 : 0;
      if (rate.bytes == 0) rate.error = "no bytes arrived";
    } catch (const comm::CommError& e) {
      rate.error = e.detail();
      recv_broken = true;  // mid-frame: unusable for later rounds
    }
  }
  sender.join();
  if (recv_broken) socks_.erase(from);
  if (!send_error.empty()) socks_.erase(to);
  return rate;
}

}  // namespace hn::drivers::cluster
