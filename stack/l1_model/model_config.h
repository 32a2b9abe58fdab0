#pragma once
// The size of the bundled model (a tiny decoder-only transformer: token and
// position embeddings, `layers` pre-norm blocks of causal self-attention and
// an MLP or a mixture of experts, a final norm and an untied output head,
// cross-entropy on the next token) and of one training step.
//
// A step consumes `batch` sequences of `seq` tokens in `micro_batches`
// micro-batches; every layout sees the same global batch, so every layout
// computes the same loss up to summation order.
//
// validate() throws ConfigError naming the field and the numbers;
// check_layout() also names the layout size that does not divide.

#include <stdexcept>
#include <string>

#include "stack/l2_framework/layout.h"
#include "stack/l4_operator/dtype.h"

namespace hn::stack::model {

class ConfigError : public std::invalid_argument {
 public:
  ConfigError(std::string field, const std::string& what)
      : std::invalid_argument(field + ": " + what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

struct ModelConfig {
  int vocab = 64;                     // token ids 0..vocab-1
  int hidden = 32;                    // model width D
  int heads = 4;                      // attention heads (hidden / heads per head)
  int ffn = 64;                       // MLP (and expert) inner width
  int layers = 2;                     // transformer blocks
  int seq = 16;                       // tokens per sequence
  int batch = 16;                     // sequences per step, whole job
  int micro_batches = 2;              // per step, on every data-parallel rank
  int experts = 4;                    // 0: dense MLP blocks; else every block's FFN is an MoE
  op::DType dtype = op::DType::kF32;  // f32 or f64

  // Sequences in one micro-batch of one data-parallel rank.
  int micro_batch_size(int dp) const { return batch / (dp * micro_batches); }

  // Throws ConfigError unless every size is positive (experts >= 0), heads
  // divides hidden and dtype is f32 or f64.
  void validate() const;
  // validate(), then: layers % pp, heads % tp, ffn % tp, vocab % tp,
  // experts % ep (and ep > 1 needs experts), batch % (dp * micro_batches),
  // and the tokens of a micro-batch % tp (sequence parallelism shards them).
  void check_layout(const framework::Layout& layout) const;
};

}  // namespace hn::stack::model
