#pragma once
// Pipeline parallelism: Megatron-LM's 1F1B schedule without interleaving
// (forward_backward_pipelining_without_interleaving). Stage s of pp runs
//   warmup    = min(pp - s - 1, micro_batches) forwards,
//   remaining = micro_batches - warmup steady pairs (one forward, one backward),
//   cooldown  = warmup backwards,
// exchanging activations forward and their gradients backward with its
// neighbours over the pp group. In the steady state the exchanges are paired
// (send the activation while receiving a gradient from the next stage, send
// a gradient while receiving the next activation from the previous), so no
// two stages wait on each other. With pp = 1 this is forward, backward per
// micro-batch. Backwards always run in micro-batch order 0, 1, ...
//
// The stage's callbacks do the model's work; what they throw propagates
// (a collective's PeerDiedError or TimeoutError, within the world's timeout).

#include "stack/l2_framework/process_groups.h"
#include "stack/l4_operator/registry.h"
#include "stack/l4_operator/tensor.h"

namespace hn::stack::framework {

class PipelineStage {
 public:
  virtual ~PipelineStage() = default;
  // input: the previous stage's activation (null on the first stage).
  // Returns the activation for the next stage (ignored on the last stage).
  virtual op::Tensor forward(int micro_batch, const op::Tensor* input) = 0;
  // output_grad: the gradient of forward's output (null on the last stage,
  // which starts from its loss). Returns the gradient of forward's input
  // (ignored on the first stage).
  virtual op::Tensor backward(int micro_batch, const op::Tensor* output_grad) = 0;
  // The shape of what flows between stages (activation and gradient alike).
  virtual op::TensorSpec boundary_spec() const = 0;
};

// The number of forwards stage `stage` runs before its first backward.
int warmup_micro_batches(int stages, int stage, int micro_batches);

// Fault injection for tests: the last stage takes micro-batches 0 and 1 in
// each other's place (activations paired with the wrong micro-batch's
// targets, their gradients sent back for the wrong one), as a misrouted
// pipeline exchange would.
struct PipelineFaults {
  bool swap_micro_batches = false;
};

void run_1f1b(Group& pp, PipelineStage& stage, int micro_batches,
              const PipelineFaults& faults = {});

}  // namespace hn::stack::framework
