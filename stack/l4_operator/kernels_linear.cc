// matmul and embedding.
#include "stack/l4_operator/kernel_util.h"

namespace hn::stack::op {

using detail::require;

namespace {

// A [..., M, K] x B [K, N] or [..., K, N] with A's batch dims.
TensorSpec matmul_infer(const std::vector<TensorSpec>& in, const Attributes&) {
  detail::same_dtype(in, "matmul");
  const Shape &a = in[0].shape, &b = in[1].shape;
  require(a.size() >= 2, "matmul", "A must have rank >= 2, got " + to_string(a));
  require(b.size() == 2 || b.size() == a.size(), "matmul",
          "B must be 2-D or have A's rank, got A " + to_string(a) + ", B " + to_string(b));
  if (b.size() == a.size())
    for (std::size_t i = 0; i + 2 < a.size(); ++i)
      require(a[i] == b[i], "matmul", "batch dims differ: " + to_string(a) + " x " + to_string(b));
  require(a[a.size() - 1] == b[b.size() - 2], "matmul",
          "inner dims differ: " + to_string(a) + " x " + to_string(b));
  Shape out(a.begin(), a.end() - 1);
  out.push_back(b.back());
  return {in[0].dtype, out};
}

Tensor matmul_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor &A = *in[0], &B = *in[1];
  TensorSpec spec = matmul_infer({{A.dtype(), A.shape()}, {B.dtype(), B.shape()}}, attrs);
  Tensor out(spec.dtype, spec.shape);
  const std::int64_t M = A.shape()[A.rank() - 2], K = A.shape().back(), N = B.shape().back();
  const std::int64_t batches = M * K == 0 ? 0 : A.numel() / (M * K);
  const bool shared_b = B.rank() == 2;
  detail::with_compute_type(A.dtype(), [&]<typename C>() {
    auto a = load<C>(A), b = load<C>(B);
    std::vector<C> c(static_cast<std::size_t>(out.numel()), C(0));
    for (std::int64_t t = 0; t < batches; ++t) {
      const C* pa = a.data() + t * M * K;
      const C* pb = b.data() + (shared_b ? 0 : t * K * N);
      C* pc = c.data() + t * M * N;
      for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t k = 0; k < K; ++k) {
          const C aik = pa[i * K + k];
          for (std::int64_t j = 0; j < N; ++j) pc[i * N + j] += aik * pb[k * N + j];
        }
    }
    store(out, c);
    return 0;
  });
  return out;
}

// table [V, D] indexed by ids (any shape, i32/i64) -> ids.shape + [D].
TensorSpec embedding_infer(const std::vector<TensorSpec>& in, const Attributes& attrs) {
  require(attr_int(attrs, "axis", 0) == 0, "embedding", "only axis 0 is supported");
  require(in[0].shape.size() == 2, "embedding",
          "table must be [V, D], got " + to_string(in[0].shape));
  require(in[1].dtype == DType::kI32 || in[1].dtype == DType::kI64, "embedding",
          "ids must be i32 or i64, got " + std::string(to_string(in[1].dtype)));
  Shape out = in[1].shape;
  out.push_back(in[0].shape[1]);
  return {in[0].dtype, out};
}

Tensor embedding_run(const std::vector<const Tensor*>& in, const Attributes& attrs) {
  const Tensor &table = *in[0], &ids = *in[1];
  TensorSpec spec =
      embedding_infer({{table.dtype(), table.shape()}, {ids.dtype(), ids.shape()}}, attrs);
  Tensor out(spec.dtype, spec.shape);
  const std::int64_t V = table.shape()[0], D = table.shape()[1];
  const std::size_t row = static_cast<std::size_t>(D) * dtype_size(table.dtype());
  const auto* src = static_cast<const std::byte*>(table.data());
  auto* dst = static_cast<std::byte*>(out.data());
  for (std::int64_t i = 0; i < ids.numel(); ++i) {
    auto id = static_cast<std::int64_t>(ids.get(i));
    require(
        id >= -V && id < V, "embedding",
        "id " + std::to_string(id) + " out of range for a table of " + std::to_string(V) + " rows");
    if (id < 0) id += V;  // Gather semantics
    std::copy_n(src + static_cast<std::size_t>(id) * row, row,
                dst + static_cast<std::size_t>(i) * row);
  }
  return out;
}

}  // namespace

void register_linear_kernels(Registry& r) {
  Kernel mm{"matmul", detail::kFloatTypes, {}, 2, 2, matmul_infer, matmul_run};
  mm.limits.min_rank = 2;
  mm.limits.max_rank = 8;
  r.add(std::move(mm));
  Kernel emb{"embedding", detail::kFloatTypes, {}, 2, 2, embedding_infer, embedding_run};
  emb.limits.min_rank = 2;
  emb.limits.max_rank = 2;
  emb.limits.attributes["axis"] = {"0"};
  r.add(std::move(emb));
}

}  // namespace hn::stack::op
