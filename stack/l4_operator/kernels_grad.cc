// Backward kernels: the gradients training needs that forward kernels cannot
// express (matmul's gradients are matmuls of transposes). Each takes the
// forward's saved input or output and the upstream gradient dy, and returns
// the gradient of one input; tests/stack/l4_operator/grad_test.cc checks
// each against central finite differences.
//
//   gelu_grad(x, dy)                      dx, attribute approximate as gelu
//   softmax_grad(y, dy)                   dx from softmax's output y (last axis)
//   layernorm_grad(x, scale, dy)          output=input: dx; =scale: d scale [D];
//                                         =bias: d bias [D]; epsilon as layernorm
//   cross_entropy_grad(logits, labels)    d logits of the mean loss (reduction=mean)
//   embedding_grad(dy, ids)               d table [num_embeddings, D]; rows of ids
//                                         that repeat accumulate in id order
#include <cmath>

#include "stack/l4_operator/kernel_util.h"

namespace hn::stack::op {

using detail::require;

namespace {

std::vector<TensorSpec> specs_of(const std::vector<const Tensor*>& in) {
  std::vector<TensorSpec> s;
  for (const Tensor* t : in) s.push_back({t->dtype(), t->shape()});
  return s;
}

void last_axis_only(const Attributes& attrs, const std::string& op) {
  require(attr_int(attrs, "axis", -1) == -1, op, "only axis=-1 (the last axis) is supported");
}

TensorSpec same_as_first(const std::vector<TensorSpec>& in, const std::string& op) {
  detail::same_dtype(in, op);
  require(in[0].shape == in[1].shape, op,
          "x and dy must have one shape, got " + to_string(in[0].shape) + " and " +
              to_string(in[1].shape));
  return in[0];
}

// d/dx of gelu, exact (erf) or the tanh approximation.
TensorSpec gelu_grad_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  const std::string mode = attr_string(attrs, "approximate", "none");
  require(mode == "none" || mode == "tanh", "gelu_grad",
          "approximate must be none or tanh, got " + mode);
  return same_as_first(in, "gelu_grad");
}

Tensor gelu_grad_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  TensorSpec spec = gelu_grad_infer(specs_of(in), attrs);
  const bool tanh_mode = attr_string(attrs, "approximate", "none") == "tanh";
  Tensor out(spec.dtype, spec.shape);
  detail::with_compute_type(spec.dtype, [&]<typename C>() {
    auto x = load<C>(*in[0]), dy = load<C>(*in[1]);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const C v = x[i];
      C d;
      if (tanh_mode) {
        const C k = C(0.7978845608028654), a = C(0.044715);
        const C t = std::tanh(k * (v + a * v * v * v));
        d = C(0.5) * (C(1) + t) + C(0.5) * v * (C(1) - t * t) * k * (C(1) + C(3) * a * v * v);
      } else {
        const C cdf = C(0.5) * (C(1) + std::erf(v * C(0.7071067811865476)));
        const C pdf = std::exp(C(-0.5) * v * v) * C(0.3989422804014327);  // 1/sqrt(2 pi)
        d = cdf + v * pdf;
      }
      x[i] = dy[i] * d;
    }
    store(out, x);
    return 0;
  });
  return out;
}

TensorSpec softmax_grad_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  last_axis_only(attrs, "softmax_grad");
  require(!in[0].shape.empty(), "softmax_grad", "needs rank >= 1");
  return same_as_first(in, "softmax_grad");
}

// dx = y * (dy - sum(dy * y)) per row.
Tensor softmax_grad_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  TensorSpec spec = softmax_grad_infer(specs_of(in), attrs);
  Tensor out(spec.dtype, spec.shape);
  const std::int64_t n = spec.shape.back(), rows = n == 0 ? 0 : in[0]->numel() / n;
  detail::with_compute_type(spec.dtype, [&]<typename C>() {
    auto y = load<C>(*in[0]), dy = load<C>(*in[1]);
    for (std::int64_t r = 0; r < rows; ++r) {
      C* yr = y.data() + r * n;
      const C* gr = dy.data() + r * n;
      C dot = 0;
      for (std::int64_t j = 0; j < n; ++j) dot += yr[j] * gr[j];
      for (std::int64_t j = 0; j < n; ++j) yr[j] = yr[j] * (gr[j] - dot);
    }
    store(out, y);
    return 0;
  });
  return out;
}

TensorSpec layernorm_grad_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  last_axis_only(attrs, "layernorm_grad");
  detail::same_dtype(in, "layernorm_grad");
  const std::string output = attr_string(attrs, "output", "input");
  require(output == "input" || output == "scale" || output == "bias", "layernorm_grad",
          "output must be input, scale or bias, got " + output);
  require(!in[0].shape.empty(), "layernorm_grad", "needs rank >= 1");
  const Shape last{in[0].shape.back()};
  require(in[1].shape == last, "layernorm_grad",
          "scale must be " + to_string(last) + ", got " + to_string(in[1].shape));
  require(in[2].shape == in[0].shape, "layernorm_grad",
          "dy must be " + to_string(in[0].shape) + ", got " + to_string(in[2].shape));
  if (output == "input") return in[0];
  return {in[0].dtype, last};
}

// With xhat = (x - mean) * inv and g = dy * scale, per row of n:
//   dx = inv * (g - mean(g) - xhat * mean(g * xhat)),
//   d scale = sum over rows of dy * xhat, d bias = sum over rows of dy.
Tensor layernorm_grad_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  TensorSpec spec = layernorm_grad_infer(specs_of(in), attrs);
  const std::string output = attr_string(attrs, "output", "input");
  const double eps = attr_float(attrs, "epsilon", 1e-5);
  const std::int64_t n = in[0]->shape().back(), rows = n == 0 ? 0 : in[0]->numel() / n;
  Tensor out(spec.dtype, spec.shape);
  detail::with_compute_type(spec.dtype, [&]<typename C>() {
    auto x = load<C>(*in[0]), scale = load<C>(*in[1]), dy = load<C>(*in[2]);
    std::vector<C> result(static_cast<std::size_t>(out.numel()), C(0));
    std::vector<C> xhat(static_cast<std::size_t>(n)), g(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < rows; ++r) {
      const C* xr = x.data() + r * n;
      const C* gr = dy.data() + r * n;
      C mean = 0, var = 0;
      for (std::int64_t j = 0; j < n; ++j) mean += xr[j];
      mean /= static_cast<C>(n);
      for (std::int64_t j = 0; j < n; ++j) var += (xr[j] - mean) * (xr[j] - mean);
      var /= static_cast<C>(n);
      const C inv = C(1) / std::sqrt(var + static_cast<C>(eps));
      for (std::int64_t j = 0; j < n; ++j) xhat[j] = (xr[j] - mean) * inv;
      if (output == "scale") {
        for (std::int64_t j = 0; j < n; ++j) result[j] += gr[j] * xhat[j];
      } else if (output == "bias") {
        for (std::int64_t j = 0; j < n; ++j) result[j] += gr[j];
      } else {
        C mg = 0, mgx = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          g[j] = gr[j] * scale[j];
          mg += g[j];
          mgx += g[j] * xhat[j];
        }
        mg /= static_cast<C>(n);
        mgx /= static_cast<C>(n);
        C* dx = result.data() + r * n;
        for (std::int64_t j = 0; j < n; ++j) dx[j] = inv * (g[j] - mg - xhat[j] * mgx);
      }
    }
    store(out, result);
    return 0;
  });
  return out;
}

TensorSpec cross_entropy_grad_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  require(attr_string(attrs, "reduction", "mean") == "mean", "cross_entropy_grad",
          "only reduction=mean is supported");
  require(in[0].shape.size() == 2, "cross_entropy_grad",
          "logits must be [N, C], got " + to_string(in[0].shape));
  require(in[1].dtype == DType::kI32 || in[1].dtype == DType::kI64, "cross_entropy_grad",
          "labels must be i32 or i64");
  require(in[1].shape == Shape{in[0].shape[0]}, "cross_entropy_grad",
          "labels must be [N], got " + to_string(in[1].shape));
  require(in[0].shape[0] > 0, "cross_entropy_grad", "needs at least one sample");
  return in[0];
}

// (softmax(logits) - onehot(label)) / N.
Tensor cross_entropy_grad_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  TensorSpec spec = cross_entropy_grad_infer(specs_of(in), attrs);
  const std::int64_t N = spec.shape[0], Cn = spec.shape[1];
  Tensor out(spec.dtype, spec.shape);
  detail::with_compute_type(spec.dtype, [&]<typename C>() {
    auto v = load<C>(*in[0]);
    for (std::int64_t i = 0; i < N; ++i) {
      const auto label = static_cast<std::int64_t>(in[1]->get(i));
      require(label >= 0 && label < Cn, "cross_entropy_grad",
              "label " + std::to_string(label) + " out of range for " + std::to_string(Cn) +
                  " classes");
      C* row = v.data() + i * Cn;
      C m = row[0];
      for (std::int64_t j = 1; j < Cn; ++j) m = row[j] > m ? row[j] : m;
      C sum = 0;
      for (std::int64_t j = 0; j < Cn; ++j) sum += (row[j] = std::exp(row[j] - m));
      for (std::int64_t j = 0; j < Cn; ++j) row[j] /= sum;
      row[label] -= C(1);
      for (std::int64_t j = 0; j < Cn; ++j) row[j] /= static_cast<C>(N);
    }
    store(out, v);
    return 0;
  });
  return out;
}

TensorSpec embedding_grad_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  const std::int64_t V = attr_int(attrs, "num_embeddings", 0);
  require(V > 0, "embedding_grad", "needs num_embeddings > 0");
  require(in[1].dtype == DType::kI32 || in[1].dtype == DType::kI64, "embedding_grad",
          "ids must be i32 or i64, got " + std::string(to_string(in[1].dtype)));
  Shape want = in[1].shape;
  require(!in[0].shape.empty(), "embedding_grad", "dy needs rank >= 1");
  want.push_back(in[0].shape.back());
  require(in[0].shape == want, "embedding_grad",
          "dy must be ids.shape + [D] = " + to_string(want) + ", got " + to_string(in[0].shape));
  return {in[0].dtype, {V, in[0].shape.back()}};
}

Tensor embedding_grad_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  TensorSpec spec = embedding_grad_infer(specs_of(in), attrs);
  const std::int64_t V = spec.shape[0], D = spec.shape[1];
  Tensor out(spec.dtype, spec.shape);
  detail::with_compute_type(spec.dtype, [&]<typename C>() {
    auto dy = load<C>(*in[0]);
    std::vector<C> table(static_cast<std::size_t>(V * D), C(0));
    const Tensor& ids = *in[1];
    for (std::int64_t i = 0; i < ids.numel(); ++i) {
      auto id = static_cast<std::int64_t>(ids.get(i));
      require(id >= -V && id < V, "embedding_grad",
              "id " + std::to_string(id) + " out of range for a table of " + std::to_string(V) +
                  " rows");
      if (id < 0) id += V;
      C* row = table.data() + id * D;
      const C* g = dy.data() + i * D;
      for (std::int64_t j = 0; j < D; ++j) row[j] += g[j];
    }
    store(out, table);
    return 0;
  });
  return out;
}

}  // namespace

void register_grad_kernels(Registry& r) {
  Kernel gg{"gelu_grad", detail::kFloatTypes, {}, 2, 2, gelu_grad_infer, gelu_grad_run};
  gg.limits.attributes["approximate"] = {"none", "tanh"};
  r.add(std::move(gg));
  Kernel sg{"softmax_grad", detail::kFloatTypes, {}, 2, 2, softmax_grad_infer, softmax_grad_run};
  sg.limits.min_rank = 1;
  sg.limits.max_rank = 8;
  sg.limits.attributes["axis"] = {"-1"};
  r.add(std::move(sg));
  Kernel lg{"layernorm_grad",     detail::kFloatTypes, {}, 3, 3,
            layernorm_grad_infer, layernorm_grad_run};
  lg.limits.min_rank = 1;
  lg.limits.max_rank = 8;
  lg.limits.attributes["axis"] = {"-1"};
  lg.limits.attributes["output"] = {"input", "scale", "bias"};
  r.add(std::move(lg));
  Kernel cg{"cross_entropy_grad",     detail::kFloatTypes,   {}, 2, 2,
            cross_entropy_grad_infer, cross_entropy_grad_run};
  cg.limits.min_rank = 2;
  cg.limits.max_rank = 2;
  cg.limits.attributes["reduction"] = {"mean"};
  r.add(std::move(cg));
  Kernel eg{"embedding_grad",     detail::kFloatTypes, {}, 2, 2,
            embedding_grad_infer, embedding_grad_run};
  eg.limits.min_rank = 2;
  eg.limits.max_rank = 8;
  r.add(std::move(eg));
}

}  // namespace hn::stack::op
