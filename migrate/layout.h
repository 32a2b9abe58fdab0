#pragma once
// The parallel layout's rank groups, as Megatron-LM builds them. Kept behind
// this one function so that the stack's layout type (stack/l2_framework) can
// replace it without touching the scheduling concern.
//
// Megatron's orders ("tp-cp-ep-dp-pp" by default, "tp-cp-ep-pp-dp" with
// use_tp_pp_dp_mapping) both put tp first, and the first token varies
// fastest (parallel_state.py, generate_masked_orthogonal_rank_groups): tensor-
// parallel group g is ranks [g*tp, (g+1)*tp). Pure; tp and world must be >= 1.

#include <vector>

namespace hn::migrate {

std::vector<std::vector<long long>> tp_groups(long long tp, long long world);

}  // namespace hn::migrate
