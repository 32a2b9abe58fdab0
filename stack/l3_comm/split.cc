#include "stack/l3_comm/split.h"

#include <algorithm>
#include <stdexcept>

#include "stack/l3_comm/collectives.h"
#include "stack/l3_comm/tcp/device.h"

namespace hn::stack::comm {

namespace {

// The parent's device seen through a group: pair(i) is the parent's pair to
// the group's i-th member. Waits and interrupts are the parent's, so the
// parent's watch thread wakes a collective blocked in any group.
class GroupDevice final : public Device {
 public:
  GroupDevice(Device& parent, std::vector<int> members)
      : parent_(parent), members_(std::move(members)) {}
  const char* name() const override { return parent_.name(); }
  Pair& pair(int peer) override {
    return parent_.pair(members_.at(static_cast<std::size_t>(peer)));
  }
  void wait(std::span<Pair* const> senders, std::span<Pair* const> receivers,
            Clock::time_point deadline) override {
    parent_.wait(senders, receivers, deadline);
  }
  void interrupt() override { parent_.interrupt(); }
  // Safe with groups: a schedule's bytes on a pair are matched by exactly
  // one schedule of the peer, whichever communicator runs it (shm/ring.h).
  void begin_schedule() override { parent_.begin_schedule(); }

 private:
  Device& parent_;
  std::vector<int> members_;
};

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s;
}

}  // namespace

// Rethrows the CommError being handled with ranks of the parent: the local
// rank, and the peer of a timeout (the engine names it by its position in
// the group; pairs and the rendezvous already use the parent's numbering).
[[noreturn]] void rethrow_in_parent_ranks(const std::vector<int>& ranks, const std::string& group) {
  auto translate = [&](const CommError& e, bool peer_is_group_rank) {
    ErrorContext c = e.context();
    auto at = [&](int r) { return r >= 0 && r < static_cast<int>(ranks.size()) ? ranks[r] : r; };
    c.local_rank = at(c.local_rank);
    if (peer_is_group_rank) c.peer_rank = at(c.peer_rank);
    c.operation += " in group " + group + " (ranks " + rank_list(ranks) + ")";
    return c;
  };
  // detail() carries the kind's prefix, which the constructors add again.
  auto bare = [](const LinkError& e) {
    const std::string prefix = std::string(LinkError::kind_name(e.kind())) + ": ";
    return e.detail().rfind(prefix, 0) == 0 ? e.detail().substr(prefix.size()) : e.detail();
  };
  try {
    throw;
  } catch (const PeerDiedError& e) {
    throw PeerDiedError(e.dead_rank(), bare(e), translate(e, false));
  } catch (const AuthError& e) {
    throw AuthError(bare(e), translate(e, false));
  } catch (const TimeoutError& e) {
    throw TimeoutError(bare(e), translate(e, true));
  } catch (const LinkError& e) {
    throw LinkError(e.kind(), bare(e), translate(e, false));
  }
}

Communicator::Communicator(Communicator& parent, CommOptions options, std::vector<int> parent_ranks,
                           const LinkParams* own_links)
    : opt_(std::move(options)),
      transport_(parent.transport_),
      parent_(&parent),
      parent_ranks_(std::move(parent_ranks)) {
  opt_.creds.world = opt_.world;
  if (opt_.world == 1) return;
  group_store_ = std::make_unique<PrefixStore>(parent.store(), "split/" + opt_.group);
  if (!own_links) {
    device_ = std::make_unique<GroupDevice>(*parent.device_, parent_ranks_);
    live_device_.store(device_.get(), std::memory_order_release);
    return;
  }
  Communicator* root = &parent;
  while (root->parent_) root = root->parent_;
  opt_.link = *own_links;
  transport_ = TransportKind::kTcp;
  PrefixStore link_store(*group_store_, "tcp");
  DeviceSetup setup;
  setup.rank = opt_.rank;
  setup.world = opt_.world;
  setup.store = &link_store;
  setup.creds = opt_.creds;
  setup.link = opt_.link;
  setup.advertise_ip = root->client_ ? root->client_->local_ip() : "127.0.0.1";
  setup.timeout = std::max(opt_.timeout, opt_.link.connect_timeout);
  try {
    device_ = tcp::create_device(setup);
  } catch (const CommError&) {
    rethrow_in_parent_ranks(parent_ranks_, opt_.group);
  }
  root->watch_device(device_.get(), true);
  if (aborts().is_set()) device_->interrupt();
}

void Communicator::watch_device(Device* d, bool add) {
  std::lock_guard<std::mutex> lock(watched_mu_);
  if (add)
    watched_.push_back(d);
  else
    std::erase(watched_, d);
}

std::unique_ptr<Communicator> split(Communicator& parent, int color, int key,
                                    const std::string& name, const LinkParams* own_links) {
  if (color < 0 && color != kNoColor)
    throw std::invalid_argument("split: color " + std::to_string(color) +
                                " is negative (use kNoColor, -1, to join no group)");
  const int n = parent.size();
  std::vector<std::int64_t> mine = {color, key}, all(static_cast<std::size_t>(2 * n));
  Options o;
  o.dtype = op::DType::kI64;
  if (n > 1) {
    allgather(parent, mine.data(), all.data(), 2, o);
  } else {
    all = mine;
  }
  const int seq = parent.splits_++;
  if (color == kNoColor) return nullptr;
  // Members of our colour by (key, parent rank): stable_sort keeps rank order on ties.
  std::vector<int> members;
  for (int r = 0; r < n; ++r)
    if (all[static_cast<std::size_t>(2 * r)] == color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[static_cast<std::size_t>(2 * a + 1)] < all[static_cast<std::size_t>(2 * b + 1)];
  });
  CommOptions opt = parent.opt_;
  opt.world = static_cast<int>(members.size());
  opt.rank =
      static_cast<int>(std::find(members.begin(), members.end(), parent.rank()) - members.begin());
  opt.store_fd = -1;
  // Unique among the parent's splits, the same on every member.
  opt.group =
      parent.opt_.group + "." + std::to_string(seq) + "/" + name + "#" + std::to_string(color);
  // Ranks of the root communicator, for messages.
  std::vector<int> root_ranks = members;
  if (!parent.parent_ranks_.empty())
    for (int& r : root_ranks) r = parent.parent_ranks_[static_cast<std::size_t>(r)];
  // A borrowing group's device indexes the parent's pairs by parent rank.
  auto child = std::unique_ptr<Communicator>(
      new Communicator(parent, opt, own_links ? root_ranks : members, own_links));
  child->parent_ranks_ = std::move(root_ranks);
  return child;
}

}  // namespace hn::stack::comm
