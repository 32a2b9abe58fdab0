#pragma once
// A trainable parameter as the framework sees it: this rank's shard of the
// value, the gradient accumulated over the step's micro-batches, how the
// gradient is made whole, and the optimizer's state.
//
// Every rank builds a parameter's full value the same way (seeded by the
// job seed and the parameter's name, whatever the layout) and keeps its
// shard, so every layout starts from the same model as one rank would.

#include <cstdint>
#include <string>
#include <vector>

#include "stack/l4_operator/tensor.h"

namespace hn::stack::framework {

// Which data-parallel group holds the replicas whose gradients are summed.
enum class Replicas { kData, kExpertData };

struct Parameter {
  std::string name;
  op::Tensor value;
  op::Tensor grad;  // same shape; zeroed by zero_grad()
  Replicas replicas = Replicas::kData;
  // The gradient covers only this tensor-parallel rank's tokens (sequence
  // parallelism: norms, embeddings, experts): it is summed over tp too.
  bool sequence_parallel = false;
  op::Tensor exp_avg, exp_avg_sq;  // optimizer state (momentum, Adam's m and v)

  void zero_grad();
  std::size_t bytes() const;
};

// The full value: normal(0, stddev) from a generator seeded by (seed, name),
// the same on every rank and in every layout.
op::Tensor init_normal(std::uint64_t seed, const std::string& name, const op::Shape& shape,
                       double stddev, op::DType dtype);
op::Tensor init_constant(const op::Shape& shape, double value, op::DType dtype);

// Block `index` of `parts` equal blocks along `dim` (a copy). Throws
// std::invalid_argument when the dimension does not divide.
op::Tensor shard(const op::Tensor& full, int dim, int parts, int index);
// The inverse: blocks concatenated along `dim`.
op::Tensor concat(const std::vector<op::Tensor>& blocks, int dim);

// FNV-1a over the bytes of the values, in order: a replica's fingerprint.
std::uint64_t checksum(const std::vector<const Parameter*>& params);

}  // namespace hn::stack::framework
