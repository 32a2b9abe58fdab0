#pragma once
// The synthetic dataset: seeded, deterministic, sharded by data-parallel
// rank. Sequence j of step t is a function of (seed, t, j) only, so every
// layout trains on the same global batch: data-parallel rank d of dp takes
// sequences [d*B/dp, (d+1)*B/dp) and cuts them into micro-batches in order.
//
// Each sequence follows a fixed rule with noise: the next token is
// (a * token + c) mod vocab three times in four, a uniform token otherwise.
// A model that learns the rule drives the loss from ln(vocab) towards the
// noise floor, so "the loss decreases" is a real check.

#include <cstdint>
#include <vector>

#include "stack/l1_model/model_config.h"
#include "stack/l4_operator/tensor.h"

namespace hn::stack::model {

struct MicroBatch {
  op::Tensor ids;     // [b * seq] i64: the input tokens, sequence-major
  op::Tensor labels;  // [b * seq] i64: the token after each input token
};

class SyntheticData {
 public:
  SyntheticData(const ModelConfig& config, std::uint64_t seed);
  // seq + 1 tokens.
  std::vector<std::int64_t> sequence(long long step, int index) const;
  MicroBatch micro_batch(long long step, int dp_rank, int dp, int micro_batch) const;

 private:
  ModelConfig config_;
  std::uint64_t seed_;
  std::int64_t a_, c_;
};

}  // namespace hn::stack::model
