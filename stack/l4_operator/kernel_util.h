#pragma once
// Small helpers the kernels_*.cc files share: dtype lists, input checks and
// the dispatch to a compute type (double for f64, float otherwise).

#include <string>
#include <vector>

#include "stack/l4_operator/registry.h"

namespace hn::stack::op::detail {

inline const std::vector<DType> kFloatTypes = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16};
inline const std::vector<DType> kAllTypes = {DType::kF32,  DType::kF64, DType::kF16,
                                             DType::kBF16, DType::kI32, DType::kI64};

// Throws ShapeError "<op>: <what>" unless ok.
inline void require(bool ok, const std::string& op, const std::string& what) {
  if (!ok) throw ShapeError(op + ": " + what);
}

inline void same_dtype(const std::vector<TensorSpec>& in, const std::string& op) {
  for (const auto& s : in)
    require(s.dtype == in[0].dtype, op,
            "inputs have different dtypes (" + std::string(to_string(in[0].dtype)) + " and " +
                std::string(to_string(s.dtype)) + ")");
}

// Calls f.template operator()<C>() with C = double for f64, float otherwise.
template <typename F>
auto with_compute_type(DType t, F&& f) {
  if (t == DType::kF64) return f.template operator()<double>();
  return f.template operator()<float>();
}

}  // namespace hn::stack::op::detail
