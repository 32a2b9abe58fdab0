#include "stack/l2_framework/replica_check.h"

#include <cstring>
#include <map>

namespace hn::stack::framework {

namespace {

ReplicaGroupResult check_group(Group& g, const std::vector<const Parameter*>& params) {
  ReplicaGroupResult r;
  r.group = g.name();
  r.members = g.world_ranks();
  r.reporter = g.rank() == 0;
  op::Tensor mine(op::DType::kI64, {1});
  const std::uint64_t sum = checksum(params);
  std::memcpy(mine.data(), &sum, sizeof sum);
  op::Tensor all = g.allgather(mine);
  r.sums.resize(static_cast<std::size_t>(g.size()));
  std::memcpy(r.sums.data(), all.data(), r.sums.size() * sizeof(std::uint64_t));
  std::map<std::uint64_t, int> votes;
  for (auto s : r.sums) ++votes[s];
  int best = 0, at_best = 0;
  std::uint64_t majority = 0;
  for (const auto& [s, n] : votes) {
    if (n > best) {
      best = n;
      majority = s;
      at_best = 1;
    } else if (n == best) {
      ++at_best;
    }
  }
  for (std::size_t i = 0; i < r.sums.size(); ++i)
    if (at_best > 1 ? votes.size() > 1 : r.sums[i] != majority) r.diverged.push_back(r.members[i]);
  return r;
}

}  // namespace

std::vector<ReplicaGroupResult> check_replicas(ProcessGroups& groups,
                                               const std::vector<const Parameter*>& dense,
                                               const std::vector<const Parameter*>& experts) {
  std::vector<ReplicaGroupResult> out;
  out.push_back(check_group(*groups.dp, dense));
  if (!experts.empty()) out.push_back(check_group(*groups.expert_dp, experts));
  return out;
}

}  // namespace hn::stack::framework
