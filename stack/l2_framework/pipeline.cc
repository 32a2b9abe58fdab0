#include "stack/l2_framework/pipeline.h"

#include <algorithm>

namespace hn::stack::framework {

int warmup_micro_batches(int stages, int stage, int micro_batches) {
  return std::min(stages - stage - 1, micro_batches);
}

void run_1f1b(Group& pp, PipelineStage& stage, int micro_batches, const PipelineFaults& faults) {
  const int s = pp.rank(), n = pp.size();
  const bool first = s == 0, last = s == n - 1;
  const int prev = first ? -1 : s - 1, next = last ? -1 : s + 1;
  const op::TensorSpec spec = stage.boundary_spec();
  auto buffer = [&] { return op::Tensor(spec.dtype, spec.shape); };

  const int warmup = warmup_micro_batches(n, s, micro_batches);
  const int remaining = micro_batches - warmup;
  int fwd = 0, bwd = 0;

  auto recv_forward = [&] {
    op::Tensor in = buffer();
    if (!first) pp.sendrecv(nullptr, -1, &in, prev);
    return in;
  };
  const bool swap = faults.swap_micro_batches && last && micro_batches >= 2;
  auto index = [&](int m) { return swap && m < 2 ? 1 - m : m; };
  auto forward = [&](const op::Tensor& in) {
    return stage.forward(index(fwd++), first ? nullptr : &in);
  };
  auto backward = [&](const op::Tensor& grad) {
    return stage.backward(index(bwd++), last ? nullptr : &grad);
  };

  for (int i = 0; i < warmup; ++i) {
    op::Tensor in = recv_forward();
    op::Tensor out = forward(in);
    if (!last) pp.sendrecv(&out, next, nullptr, -1);
  }
  op::Tensor in;
  if (remaining > 0) in = recv_forward();
  for (int i = 0; i < remaining; ++i) {
    op::Tensor out = forward(in);
    // send_forward_recv_backward
    op::Tensor grad = buffer();
    if (!last) pp.sendrecv(&out, next, &grad, next);
    op::Tensor input_grad = backward(grad);
    if (i == remaining - 1) {
      if (!first) pp.sendrecv(&input_grad, prev, nullptr, -1);
    } else {
      // send_backward_recv_forward
      in = buffer();
      if (!first) pp.sendrecv(&input_grad, prev, &in, prev);
    }
  }
  for (int i = 0; i < warmup; ++i) {
    op::Tensor grad = buffer();
    if (!last) pp.sendrecv(nullptr, -1, &grad, next);
    op::Tensor input_grad = backward(grad);
    if (!first) pp.sendrecv(&input_grad, prev, nullptr, -1);
  }
}

}  // namespace hn::stack::framework
