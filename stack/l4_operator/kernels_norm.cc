// softmax, layernorm and cross_entropy, all over the last axis.
#include <cmath>

#include "stack/l4_operator/kernel_util.h"

namespace hn::stack::op {

using detail::require;

namespace {

void last_axis_only(const Attributes& attrs, const std::string& op) {
  require(attr_int(attrs, "axis", -1) == -1, op, "only axis=-1 (the last axis) is supported");
}

TensorSpec softmax_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  last_axis_only(attrs, "softmax");
  require(!in[0].shape.empty(), "softmax", "needs rank >= 1");
  return in[0];
}

// Max-subtracted so large logits do not overflow.
template <typename C>
void softmax_row(const C* x, C* y, std::int64_t n) {
  C m = x[0];
  for (std::int64_t j = 1; j < n; ++j) m = x[j] > m ? x[j] : m;
  C sum = 0;
  for (std::int64_t j = 0; j < n; ++j) sum += (y[j] = std::exp(x[j] - m));
  for (std::int64_t j = 0; j < n; ++j) y[j] /= sum;
}

Tensor softmax_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor& x = *in[0];
  softmax_infer({{x.dtype(), x.shape()}}, attrs);
  Tensor out(x.dtype(), x.shape());
  const std::int64_t n = x.shape().back(), rows = n == 0 ? 0 : x.numel() / n;
  detail::with_compute_type(x.dtype(), [&]<typename C>() {
    auto v = load<C>(x);
    std::vector<C> y(v.size());
    for (std::int64_t r = 0; r < rows; ++r) softmax_row(v.data() + r * n, y.data() + r * n, n);
    store(out, y);
    return 0;
  });
  return out;
}

// x [..., D], scale [D], optional bias [D].
TensorSpec layernorm_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  last_axis_only(attrs, "layernorm");
  detail::same_dtype(in, "layernorm");
  require(!in[0].shape.empty(), "layernorm", "needs rank >= 1");
  const Shape last{in[0].shape.back()};
  for (std::size_t i = 1; i < in.size(); ++i)
    require(in[i].shape == last, "layernorm",
            "scale and bias must be " + to_string(last) + ", got " + to_string(in[i].shape));
  return in[0];
}

Tensor layernorm_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor& x = *in[0];
  std::vector<TensorSpec> specs;
  for (auto* t : in) specs.push_back({t->dtype(), t->shape()});
  layernorm_infer(specs, attrs);
  const double eps = attr_float(attrs, "epsilon", 1e-5);
  Tensor out(x.dtype(), x.shape());
  const std::int64_t n = x.shape().back(), rows = n == 0 ? 0 : x.numel() / n;
  detail::with_compute_type(x.dtype(), [&]<typename C>() {
    auto v = load<C>(x), g = load<C>(*in[1]);
    std::vector<C> b =
        in.size() > 2 ? load<C>(*in[2]) : std::vector<C>(static_cast<std::size_t>(n), C(0));
    for (std::int64_t r = 0; r < rows; ++r) {
      C* row = v.data() + r * n;
      C mean = 0, var = 0;
      for (std::int64_t j = 0; j < n; ++j) mean += row[j];
      mean /= static_cast<C>(n);
      for (std::int64_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
      var /= static_cast<C>(n);
      const C inv = C(1) / std::sqrt(var + static_cast<C>(eps));
      for (std::int64_t j = 0; j < n; ++j) row[j] = (row[j] - mean) * inv * g[j] + b[j];
    }
    store(out, v);
    return 0;
  });
  return out;
}

// logits [N, C], labels [N] (i32/i64) -> scalar mean of -log softmax(logits)[label].
TensorSpec cross_entropy_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  require(attr_string(attrs, "reduction", "mean") == "mean", "cross_entropy",
          "only reduction=mean is supported");
  require(in[0].shape.size() == 2, "cross_entropy",
          "logits must be [N, C], got " + to_string(in[0].shape));
  require(in[1].dtype == DType::kI32 || in[1].dtype == DType::kI64, "cross_entropy",
          "labels must be i32 or i64");
  require(in[1].shape == Shape{in[0].shape[0]}, "cross_entropy",
          "labels must be [N], got " + to_string(in[1].shape));
  require(in[0].shape[0] > 0, "cross_entropy", "needs at least one sample");
  return {in[0].dtype, {}};
}

Tensor cross_entropy_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor &logits = *in[0], &labels = *in[1];
  cross_entropy_infer({{logits.dtype(), logits.shape()}, {labels.dtype(), labels.shape()}}, attrs);
  const std::int64_t N = logits.shape()[0], Cn = logits.shape()[1];
  Tensor out(logits.dtype(), {});
  detail::with_compute_type(logits.dtype(), [&]<typename C>() {
    auto v = load<C>(logits);
    C total = 0;
    for (std::int64_t i = 0; i < N; ++i) {
      const auto label = static_cast<std::int64_t>(labels.get(i));
      require(label >= 0 && label < Cn, "cross_entropy",
              "label " + std::to_string(label) + " out of range for " + std::to_string(Cn) +
                  " classes");
      const C* row = v.data() + i * Cn;
      C m = row[0];
      for (std::int64_t j = 1; j < Cn; ++j) m = row[j] > m ? row[j] : m;
      C sum = 0;
      for (std::int64_t j = 0; j < Cn; ++j) sum += std::exp(row[j] - m);
      total += std::log(sum) + m - row[label];
    }
    store(out, std::vector<C>{total / static_cast<C>(N)});
    return 0;
  });
  return out;
}

}  // namespace

void register_norm_kernels(Registry& r) {
  Kernel sm{"softmax", detail::kFloatTypes, {}, 1, 1, softmax_infer, softmax_run};
  sm.limits.min_rank = 1;
  sm.limits.max_rank = 8;
  sm.limits.min_opset = 13;  // ONNX Softmax semantics from opset 13 (one axis, not flattened)
  sm.limits.attributes["axis"] = {"-1"};
  r.add(std::move(sm));
  Kernel ln{"layernorm", detail::kFloatTypes, {}, 2, 3, layernorm_infer, layernorm_run};
  ln.limits.min_rank = 1;
  ln.limits.max_rank = 8;
  ln.limits.attributes["axis"] = {"-1"};
  r.add(std::move(ln));
  Kernel ce{"cross_entropy", detail::kFloatTypes, {}, 2, 2, cross_entropy_infer, cross_entropy_run};
  ce.limits.min_rank = 2;
  ce.limits.max_rank = 2;
  ce.limits.attributes["reduction"] = {"mean"};
  r.add(std::move(ce));
}

}  // namespace hn::stack::op
