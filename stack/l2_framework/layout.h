#pragma once
// A parallel layout (Megatron-LM's tp, pp, dp, ep) and the process groups it
// gives. world = tp * pp * dp; ep divides dp. Ranks follow Megatron's default
// order "tp-cp-ep-dp-pp" (cp = 1 here): tp varies fastest, then dp, then pp,
//
//   rank = tp_rank + tp * (dp_rank + dp * pp_rank)
//
// and expert parallelism splits each data-parallel group: the expert
// generator (tensor-parallel size of the experts = tp, as Megatron's default)
// orders tp-ep-edp-pp with dp = ep * expert_dp, so
//
//   dp_rank = ep_rank + ep * expert_dp_rank.
//
// Groups of a kind partition the world; each group lists its members in
// increasing rank order, which is also their rank in the group. With world
// 16, tp 2, pp 2, ep 2 (dp 4): TP [0,1],[2,3],..; DP [0,2,4,6],[1,3,5,7],
// [8,..],..; PP [0,8],..,[7,15]; EP [0,2],[1,3],[4,6],..; expert-DP
// [0,4],[1,5],[2,6],[3,7],[8,12],..: the same groups Megatron's
// parallel_state.RankGenerator builds.
//
// parse_layout() and fits() throw LayoutError (an std::invalid_argument)
// whose message names the numbers that do not fit; callers map it to exit 2.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hn::stack::framework {

class LayoutError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class GroupKind {
  kTensor,         // tp: the ranks that split one layer's weights
  kPipeline,       // pp: one rank per stage
  kData,           // dp: replicas of the dense weights
  kExpert,         // ep: the ranks that exchange tokens in a mixture-of-experts layer
  kExpertData,     // expert dp: replicas of the same experts (dp / ep members)
  kModelParallel,  // tp x pp: one whole model replica
};
std::string_view to_string(GroupKind k);  // "tp", "pp", "dp", "ep", "expert_dp", "mp"

struct Coords {
  int tp = 0, pp = 0, dp = 0;
  int ep = 0, expert_dp = 0;  // dp = ep + layout.ep * expert_dp
};

struct Layout {
  int tp = 1, pp = 1, dp = 1, ep = 1;

  int world() const { return tp * pp * dp; }
  int expert_dp() const { return dp / ep; }
  // "tp=2,pp=2,dp=2" (ep only when > 1): what parse_layout() reads back.
  std::string to_string() const;
  bool operator==(const Layout&) const = default;

  // Throws LayoutError unless every size is >= 1 and ep divides dp.
  void validate() const;
  // Throws LayoutError unless validate() holds and world() == world_size,
  // naming the product and the world ("tp=2 x pp=2 x dp=2 = 8 ranks, but the
  // job has 4").
  void fits(int world_size) const;

  Coords coords(int rank) const;
  int rank_of(const Coords& c) const;  // tp, pp, dp are used; ep/expert_dp ignored
  // Every group of a kind, each in increasing rank order; the groups are in
  // order of their smallest member.
  std::vector<std::vector<int>> groups(GroupKind k) const;
  // The group of `kind` that holds `rank`.
  std::vector<int> group_of(GroupKind k, int rank) const;
  // Index of the group of `kind` holding rank (its colour in a split) and
  // the rank's position in it.
  int group_index(GroupKind k, int rank) const;
  int rank_in_group(GroupKind k, int rank) const;
};

// Reads "tp=2,pp=2,dp=2" (keys tp, pp, dp, ep in any order, each at most
// once; absent ones are 1; spaces around tokens are ignored). With
// world_size > 0, a missing dp is world / (tp * pp) when that divides. Throws
// LayoutError naming the token or the numbers.
Layout parse_layout(std::string_view text, int world_size = 0);

}  // namespace hn::stack::framework
