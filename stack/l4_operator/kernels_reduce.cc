// sum, prod, min, max, avg: elementwise over N inputs of one shape, with the
// same reduce.h kernels the collectives use. f16/bf16 inputs are widened to
// f32, reduced there and rounded once at the end (reduce.h alone would round
// after every pair).
#include "stack/l4_operator/kernel_util.h"
#include "stack/l4_operator/reduce.h"

namespace hn::stack::op {

using detail::require;

namespace {

TensorSpec reduce_infer(const std::vector<TensorSpec>& in, const Attributes&) {
  detail::same_dtype(in, "reduction");
  for (const auto& s : in)
    require(
        s.shape == in[0].shape, "reduction",
        "inputs must have one shape, got " + to_string(in[0].shape) + " and " + to_string(s.shape));
  return in[0];
}

Tensor widen(const Tensor& t) {
  Tensor w(DType::kF32, t.shape());
  store(w, load<float>(t));
  return w;
}

template <ReduceOp kOp>
Tensor reduce_run(const std::vector<const Tensor*>& in, const Attributes&) {
  const DType type = in[0]->dtype();
  const bool half = type == DType::kF16 || type == DType::kBF16;
  Tensor acc = half ? widen(*in[0]) : *in[0];
  const auto n = static_cast<std::size_t>(acc.numel());
  for (std::size_t i = 1; i < in.size(); ++i) {
    if (half) {
      Tensor w = widen(*in[i]);
      reduce_into(DType::kF32, kOp, acc.data(), w.data(), n);
    } else {
      reduce_into(type, kOp, acc.data(), in[i]->data(), n);
    }
  }
  if (kOp == ReduceOp::kAvg) finalize_avg(acc.dtype(), acc.data(), n, static_cast<int>(in.size()));
  if (!half) return acc;
  Tensor out(type, acc.shape());
  store(out, load<float>(acc));
  return out;
}

}  // namespace

void register_reduction_kernels(Registry& r) {
  constexpr int kMaxInputs = 1 << 16;
  r.add({"sum", detail::kAllTypes, {}, 1, kMaxInputs, reduce_infer, reduce_run<ReduceOp::kSum>});
  r.add({"prod", detail::kAllTypes, {}, 1, kMaxInputs, reduce_infer, reduce_run<ReduceOp::kProd>});
  r.add({"min", detail::kAllTypes, {}, 1, kMaxInputs, reduce_infer, reduce_run<ReduceOp::kMin>});
  r.add({"max", detail::kAllTypes, {}, 1, kMaxInputs, reduce_infer, reduce_run<ReduceOp::kMax>});
  r.add({"avg", detail::kAllTypes, {}, 1, kMaxInputs, reduce_infer, reduce_run<ReduceOp::kAvg>});
}

}  // namespace hn::stack::op
