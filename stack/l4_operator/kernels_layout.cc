// transpose and reshape: they move bytes, so every dtype works.
#include <algorithm>
#include <cstring>

#include "stack/l4_operator/kernel_util.h"

namespace hn::stack::op {

using detail::require;

namespace {

std::vector<std::int64_t> permutation(const Shape& shape, const Attributes& attrs) {
  std::vector<std::int64_t> reversed(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i)
    reversed[i] = static_cast<std::int64_t>(shape.size() - 1 - i);
  auto perm = attr_ints(attrs, "perm", reversed);
  require(perm.size() == shape.size(), "transpose",
          "perm has " + std::to_string(perm.size()) + " entries for rank " +
              std::to_string(shape.size()));
  std::vector<bool> seen(shape.size(), false);
  for (auto p : perm) {
    require(
        p >= 0 && p < static_cast<std::int64_t>(shape.size()) && !seen[static_cast<std::size_t>(p)],
        "transpose", "perm is not a permutation of 0.." + std::to_string(shape.size() - 1));
    seen[static_cast<std::size_t>(p)] = true;
  }
  return perm;
}

TensorSpec transpose_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  auto perm = permutation(in[0].shape, attrs);
  Shape out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    out[i] = in[0].shape[static_cast<std::size_t>(perm[i])];
  return {in[0].dtype, out};
}

Tensor transpose_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor& x = *in[0];
  auto perm = permutation(x.shape(), attrs);
  TensorSpec spec = transpose_infer({{x.dtype(), x.shape()}}, attrs);
  Tensor out(spec.dtype, spec.shape);
  const std::size_t rank = perm.size(), es = dtype_size(x.dtype());
  if (rank == 0) return x;  // a scalar is its own transpose
  std::vector<std::int64_t> in_stride(rank, 1);
  for (std::size_t i = rank; i-- > 1;) in_stride[i - 1] = in_stride[i] * x.shape()[i];
  // Walk the output in order; its index i along dim d is index i along input dim perm[d].
  std::vector<std::int64_t> idx(rank, 0);
  const auto* src = static_cast<const std::byte*>(x.data());
  auto* dst = static_cast<std::byte*>(out.data());
  for (std::int64_t o = 0; o < out.numel(); ++o) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < rank; ++d)
      off += idx[d] * in_stride[static_cast<std::size_t>(perm[d])];
    std::memcpy(dst + static_cast<std::size_t>(o) * es, src + static_cast<std::size_t>(off) * es,
                es);
    for (std::size_t d = rank; d-- > 0;) {
      if (++idx[d] < spec.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// "shape" attribute: -1 infers one dim, 0 copies the input's dim (allowzero=0).
TensorSpec reshape_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  require(attr_int(attrs, "allowzero", 0) == 0, "reshape", "allowzero=1 is not supported");
  auto target = attr_ints(attrs, "shape", {});
  require(attrs.count("shape") > 0, "reshape", "needs a shape attribute");
  Shape out(target.size());
  int infer_at = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    std::int64_t d = target[i];
    if (d == -1) {
      require(infer_at < 0, "reshape", "more than one -1 in the shape");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d == 0) {
      require(i < in[0].shape.size(), "reshape",
              "0 at position " + std::to_string(i) + " beyond the input's rank");
      d = in[0].shape[i];
    }
    require(d >= 0, "reshape", "negative dimension " + std::to_string(d));
    out[i] = d;
    known *= d;
  }
  const std::int64_t n = element_count(in[0].shape);
  if (infer_at >= 0) {
    require(known > 0 && n % known == 0, "reshape",
            "cannot infer -1: " + std::to_string(n) + " elements into " + to_string(target));
    out[static_cast<std::size_t>(infer_at)] = n / known;
  }
  require(element_count(out) == n, "reshape",
          "cannot reshape " + to_string(in[0].shape) + " to " + to_string(out));
  return {in[0].dtype, out};
}

Tensor reshape_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  return in[0]->reshaped(reshape_infer({{in[0]->dtype(), in[0]->shape()}}, attrs).shape);
}

}  // namespace

void register_layout_kernels(Registry& r) {
  Kernel t{"transpose", detail::kAllTypes, {}, 1, 1, transpose_infer, transpose_run};
  t.limits.min_rank = 1;
  t.limits.max_rank = 8;
  r.add(std::move(t));
  Kernel rs{"reshape", detail::kAllTypes, {}, 1, 1, reshape_infer, reshape_run};
  rs.limits.min_rank = 0;
  rs.limits.max_rank = 8;
  rs.limits.attributes["allowzero"] = {"0"};
  r.add(std::move(rs));
}

}  // namespace hn::stack::op
