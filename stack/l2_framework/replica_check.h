#pragma once
// The replica check: data-parallel replicas must hold bit-identical
// parameters (the gradient reduction gives every replica the same bits).
// Each rank fingerprints its dense parameters and its experts (FNV-1a over
// the bytes); the fingerprints are gathered over dp and over expert-dp, and
// any member whose fingerprint differs from the most common one is named. A
// tie (two replicas, two values) names every member. That is how silent
// data corruption shows up: a flipped bit in one replica's weights.
//
// Collective over the dp and expert-dp groups; throws what L3 throws.

#include <cstdint>
#include <string>
#include <vector>

#include "stack/l2_framework/parameter.h"
#include "stack/l2_framework/process_groups.h"

namespace hn::stack::framework {

struct ReplicaGroupResult {
  std::string group;                // "dp" or "expert_dp"
  std::vector<int> members;         // world ranks, group order
  std::vector<std::uint64_t> sums;  // per member
  std::vector<int> diverged;        // world ranks whose sum is not the majority's
  bool reporter = false;            // this rank is the group's first member
};

std::vector<ReplicaGroupResult> check_replicas(ProcessGroups& groups,
                                               const std::vector<const Parameter*>& dense,
                                               const std::vector<const Parameter*>& experts);

}  // namespace hn::stack::framework
