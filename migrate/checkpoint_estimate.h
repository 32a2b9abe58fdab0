#pragma once
// The size of the checkpoint a Megatron-LM job writes, estimated from the
// model's shape in its launch script (--num-layers, --hidden-size, ...), for
// the storage concern when neither the manifest nor the command line states
// it. A GPT-style decoder: per layer the attention projections (Q and O
// h x h; K and V h x kv, kv = h / heads x query groups with
// --group-query-attention), the MLP (2 or, with --swiglu, 3 matrices of
// h x ffn; with --num-experts, that many experts of --moe-ffn-hidden-size
// plus a router) and two norms; the embedding (and the output layer with
// --untie-embeddings-and-output-weights). Bytes per parameter as Megatron
// saves them: the model's weights (2 with --bf16/--fp16, else 4) and, unless
// --no-save-optim, the optimizer's fp32 state (Adam: main weights when mixed,
// two moments; SGD: main weights when mixed, momentum).
//
// Returns nullopt unless --num-layers and --hidden-size are known numbers and
// the estimate is below 1e18 bytes.
// An unknown vocabulary is taken as 256,000 (the largest in common use), so
// the estimate errs large and the text says so. Never throws.

#include <cstdint>
#include <optional>
#include <string>

#include "migrate/discovery.h"

namespace hn::migrate {

struct CheckpointEstimate {
  std::uint64_t bytes = 0;
  double parameters = 0;
  std::string how;    // "about 6.7e9 parameters (32 layers, hidden 4096, ...) x 14 bytes (...)"
  std::string where;  // file:line of --num-layers
};

std::optional<CheckpointEstimate> estimate_checkpoint(const Discovery& d);

}  // namespace hn::migrate
