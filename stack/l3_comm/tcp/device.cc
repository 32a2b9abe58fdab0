#include "stack/l3_comm/tcp/device.h"

#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "stack/l3_comm/link_acceptor.h"
#include "stack/l3_comm/spin_policy.h"
#include "stack/l3_comm/tcp/pair.h"

namespace hn::stack::comm::tcp {

namespace {

class TcpDevice : public Device {
 public:
  explicit TcpDevice(int world) : pairs_(world) {
    event_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!event_) throw LinkError(LinkError::Kind::kOther, "eventfd failed", {});
    // Like MPI's progress loop: poll without blocking for a while before
    // sleeping in the kernel (bench/README.md "Tuning"). The local rank count is not
    // known here; 1 means "decide by binding".
    policy_ = choose_spin_policy(1, std::chrono::microseconds(200), std::chrono::microseconds(0),
                                 std::chrono::microseconds(50));
    (void)world;
  }
  const char* name() const override { return "tcp"; }
  Pair& pair(int peer) override { return *pairs_.at(peer); }
  void set_pair(int peer, std::unique_ptr<TcpPair> p) { pairs_[peer] = std::move(p); }

  void wait(std::span<Pair* const> senders, std::span<Pair* const> receivers,
            Clock::time_point deadline) override {
    fds_.clear();
    fds_.push_back({event_.get(), POLLIN, 0});
    auto add = [&](Pair* p, short ev) {
      int fd = static_cast<TcpPair*>(p)->fd();
      for (auto& f : fds_)
        if (f.fd == fd) {
          f.events |= ev;
          return;
        }
      fds_.push_back({fd, ev, 0});
    };
    for (Pair* p : senders) add(p, POLLOUT);
    for (Pair* p : receivers) add(p, POLLIN);
    // The engine re-checks everything after we return; errors surface on
    // the next I/O.
    if (policy_.spin.count() > 0) {
      const auto until = Clock::now() + policy_.spin;
      do {
        if (poll(fds_.data(), fds_.size(), 0) != 0) return;
        if (policy_.yield) sched_yield();
      } while (Clock::now() < until);
    }
    poll(fds_.data(), fds_.size(), ms_left(deadline));
  }

  void interrupt() override {
    std::uint64_t one = 1;
    (void)!write(event_.get(), &one, sizeof one);
  }

 private:
  std::vector<std::unique_ptr<TcpPair>> pairs_;
  std::vector<pollfd> fds_;
  Fd event_;
  SpinPolicy policy_;
};

}  // namespace

std::unique_ptr<Device> create_device(const DeviceSetup& s) {
  auto dev = std::make_unique<TcpDevice>(s.world);
  ErrorContext ctx;
  ctx.local_rank = s.rank;
  ctx.plane = s.link.plane;
  ctx.operation = "tcp link setup";
  const std::string ip = !s.link.bind_address.empty() ? s.link.bind_address : s.advertise_ip;
  Fd listener = listen_on(s.link.bind_address, 0, s.link, ctx);
  const std::string me = (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" +
                         std::to_string(local_port_of(listener.get()));
  s.store->set("addr/" + std::to_string(s.rank), me);

  const Deadline deadline = Clock::now() + s.timeout;
  for (int peer = 0; peer < s.rank; ++peer) {
    std::string addr = s.store->get("addr/" + std::to_string(peer), s.timeout);
    auto colon = addr.rfind(':');
    std::string host = addr.substr(0, colon);
    if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
    ErrorContext c = ctx;
    c.peer_rank = peer;
    c.peer_address = addr;
    Fd fd = connect_authenticated(host, std::stoi(addr.substr(colon + 1)), s.link, s.creds, "peer",
                                  s.rank, peer, c);
    dev->set_pair(peer, std::make_unique<TcpPair>(s.rank, peer, std::move(fd), s.link.plane));
  }
  std::set<int> higher;
  for (int r = s.rank + 1; r < s.world; ++r) higher.insert(r);
  RejectionLog local_log;
  ErrorContext c = ctx;
  c.operation = "tcp link setup (waiting for higher ranks to connect)";
  for (auto& [peer, fd] :
       accept_peer_links(listener.get(), s.creds, s.rank, std::move(higher), deadline,
                         std::min(s.link.connect_timeout, kMaxHandshakeTime),
                         s.rejections ? *s.rejections : local_log, c))
    dev->set_pair(peer, std::make_unique<TcpPair>(s.rank, peer, std::move(fd), s.link.plane));
  return dev;
}

}  // namespace hn::stack::comm::tcp
