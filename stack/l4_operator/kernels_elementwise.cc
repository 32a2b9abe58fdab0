// add and mul (numpy broadcasting), gelu and relu.
#include <cmath>

#include "stack/l4_operator/kernel_util.h"

namespace hn::stack::op {

using detail::require;

namespace {

Shape broadcast(const Shape& a, const Shape& b, const std::string& op) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    std::int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    require(da == db || da == 1 || db == 1, op,
            "shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Strides of x aligned to out's rank, 0 where x is broadcast.
std::vector<std::int64_t> broadcast_strides(const Shape& x, const Shape& out) {
  std::vector<std::int64_t> s(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = x.size(); i-- > 0;) {
    std::size_t o = i + (out.size() - x.size());
    s[o] = x[i] == 1 ? 0 : stride;
    stride *= x[i];
  }
  return s;
}

template <bool kMul>
TensorSpec binary_infer(const std::vector<TensorSpec>& in, const Attributes&) {
  const char* op = kMul ? "mul" : "add";
  detail::same_dtype(in, op);
  return {in[0].dtype, broadcast(in[0].shape, in[1].shape, op)};
}

template <bool kMul>
Tensor binary_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor &A = *in[0], &B = *in[1];
  TensorSpec spec = binary_infer<kMul>({{A.dtype(), A.shape()}, {B.dtype(), B.shape()}}, attrs);
  Tensor out(spec.dtype, spec.shape);
  auto sa = broadcast_strides(A.shape(), spec.shape), sb = broadcast_strides(B.shape(), spec.shape);
  detail::with_compute_type(A.dtype(), [&]<typename C>() {
    auto a = load<C>(A), b = load<C>(B);
    std::vector<C> c(static_cast<std::size_t>(out.numel()));
    std::vector<std::int64_t> idx(spec.shape.size(), 0);
    std::int64_t oa = 0, ob = 0;
    for (std::size_t o = 0; o < c.size(); ++o) {
      c[o] = kMul ? a[static_cast<std::size_t>(oa)] * b[static_cast<std::size_t>(ob)]
                  : a[static_cast<std::size_t>(oa)] + b[static_cast<std::size_t>(ob)];
      for (std::size_t d = idx.size(); d-- > 0;) {
        oa += sa[d];
        ob += sb[d];
        if (++idx[d] < spec.shape[d]) break;
        oa -= sa[d] * idx[d];
        ob -= sb[d] * idx[d];
        idx[d] = 0;
      }
    }
    store(out, c);
    return 0;
  });
  return out;
}

TensorSpec unary_infer(const std::vector<TensorSpec>& in, const Attributes&) {
  return in[0];
}

template <typename F>
Tensor unary_apply(const Tensor& x, F f) {
  Tensor out(x.dtype(), x.shape());
  detail::with_compute_type(x.dtype(), [&]<typename C>() {
    auto v = load<C>(x);
    for (auto& e : v) e = f(e);
    store(out, v);
    return 0;
  });
  return out;
}

Tensor relu_run(const std::vector<const Tensor*>& in, const Attributes&) {
  return unary_apply(*in[0], [](auto v) { return v > 0 ? v : decltype(v)(0); });
}

// approximate=none: x/2 (1 + erf(x/sqrt 2)); tanh: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Tensor gelu_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const std::string mode = attr_string(attrs, "approximate", "none");
  require(mode == "none" || mode == "tanh", "gelu",
          "approximate must be none or tanh, got " + mode);
  if (mode == "tanh")
    return unary_apply(*in[0], [](auto v) {
      using C = decltype(v);
      const C k = C(0.7978845608028654);  // sqrt(2/pi)
      return C(0.5) * v * (C(1) + std::tanh(k * (v + C(0.044715) * v * v * v)));
    });
  return unary_apply(*in[0], [](auto v) {
    using C = decltype(v);
    return C(0.5) * v * (C(1) + std::erf(v * C(0.7071067811865476)));
  });
}

}  // namespace

void register_elementwise_kernels(Registry& r) {
  r.add({"add", detail::kFloatTypes, {}, 2, 2, binary_infer<false>, binary_run<false>});
  r.add({"mul", detail::kFloatTypes, {}, 2, 2, binary_infer<true>, binary_run<true>});
  Kernel g{"gelu", detail::kFloatTypes, {}, 1, 1, unary_infer, gelu_run};
  g.limits.attributes["approximate"] = {"none", "tanh"};
  r.add(std::move(g));
  r.add({"relu", detail::kFloatTypes, {}, 1, 1, unary_infer, relu_run});
}

}  // namespace hn::stack::op
