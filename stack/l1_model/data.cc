#include "stack/l1_model/data.h"

#include <random>

namespace hn::stack::model {

SyntheticData::SyntheticData(const ModelConfig& config, std::uint64_t seed)
    : config_(config), seed_(seed) {
  a_ = 3 + 2 * static_cast<std::int64_t>(seed % 5);
  c_ = 1 + static_cast<std::int64_t>(
               seed % static_cast<std::uint64_t>(config.vocab - 1 > 0 ? config.vocab - 1 : 1));
}

std::vector<std::int64_t> SyntheticData::sequence(long long step, int index) const {
  // mt19937_64 is specified bit for bit; the reductions are our own, so the
  // data does not depend on the standard library's distributions.
  std::seed_seq seq{static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32),
                    static_cast<std::uint32_t>(step),  static_cast<std::uint32_t>(step >> 32),
                    static_cast<std::uint32_t>(index), 0x6d6f646cu};
  std::mt19937_64 rng(seq);
  const auto V = static_cast<std::uint64_t>(config_.vocab);
  std::vector<std::int64_t> tokens(static_cast<std::size_t>(config_.seq) + 1);
  tokens[0] = static_cast<std::int64_t>(rng() % V);
  for (std::size_t i = 1; i < tokens.size(); ++i)
    tokens[i] = rng() % 4 != 0 ? (a_ * tokens[i - 1] + c_) % config_.vocab
                               : static_cast<std::int64_t>(rng() % V);
  return tokens;
}

MicroBatch SyntheticData::micro_batch(long long step, int dp_rank, int dp, int micro_batch) const {
  const int b = config_.micro_batch_size(dp), S = config_.seq;
  const int first = dp_rank * (config_.batch / dp) + micro_batch * b;
  MicroBatch mb{op::Tensor(op::DType::kI64, {static_cast<std::int64_t>(b) * S}),
                op::Tensor(op::DType::kI64, {static_cast<std::int64_t>(b) * S})};
  auto* ids = static_cast<std::int64_t*>(mb.ids.data());
  auto* labels = static_cast<std::int64_t*>(mb.labels.data());
  for (int j = 0; j < b; ++j) {
    auto t = sequence(step, first + j);
    for (int i = 0; i < S; ++i) {
      ids[j * S + i] = t[static_cast<std::size_t>(i)];
      labels[j * S + i] = t[static_cast<std::size_t>(i) + 1];
    }
  }
  return mb;
}

}  // namespace hn::stack::model
