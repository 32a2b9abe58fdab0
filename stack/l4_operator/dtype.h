#pragma once
// Element types and reduction operators shared by the operator kernels (L4)
// and the collectives (L3). f16 and bf16 are stored as 16-bit patterns and
// computed in f32 (see half.h).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hn::stack::op {

enum class DType { kF32, kF64, kF16, kBF16, kI32, kI64 };
enum class ReduceOp { kSum, kProd, kMin, kMax, kAvg };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32:
      return 4;
    case DType::kF64:
      return 8;
    case DType::kF16:
      return 2;
    case DType::kBF16:
      return 2;
    case DType::kI32:
      return 4;
    case DType::kI64:
      return 8;
  }
  return 0;
}

std::string_view to_string(DType t);      // "f32", "f64", "f16", "bf16", "i32", "i64"
std::string_view to_string(ReduceOp op);  // "sum", "prod", "min", "max", "avg"
// Accept the names above (and "float", "double", "half", "bfloat16", "int32",
// "int64", "float32", ...). Throw std::invalid_argument listing valid names.
DType dtype_from_string(std::string_view s);
ReduceOp reduce_op_from_string(std::string_view s);

inline constexpr DType kAllDTypes[] = {DType::kF32,  DType::kF64, DType::kF16,
                                       DType::kBF16, DType::kI32, DType::kI64};
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin,
                                             ReduceOp::kMax, ReduceOp::kAvg};

}  // namespace hn::stack::op
