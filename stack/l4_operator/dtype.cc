#include "stack/l4_operator/dtype.h"

#include <stdexcept>
#include <string>

namespace hn::stack::op {

std::string_view to_string(DType t) {
  switch (t) {
    case DType::kF32:
      return "f32";
    case DType::kF64:
      return "f64";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kI32:
      return "i32";
    case DType::kI64:
      return "i64";
  }
  return "?";
}

std::string_view to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kAvg:
      return "avg";
  }
  return "?";
}

DType dtype_from_string(std::string_view s) {
  struct Alias {
    std::string_view name;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"f32", DType::kF32},   {"float", DType::kF32},     {"float32", DType::kF32},
      {"f64", DType::kF64},   {"double", DType::kF64},    {"float64", DType::kF64},
      {"f16", DType::kF16},   {"half", DType::kF16},      {"float16", DType::kF16},
      {"bf16", DType::kBF16}, {"bfloat16", DType::kBF16}, {"i32", DType::kI32},
      {"int32", DType::kI32}, {"int", DType::kI32},       {"i64", DType::kI64},
      {"int64", DType::kI64}, {"long", DType::kI64}};
  for (const auto& a : kAliases)
    if (a.name == s) return a.type;
  throw std::invalid_argument("unknown dtype '" + std::string(s) +
                              "' (expected f32, f64, f16, bf16, i32 or i64)");
}

ReduceOp reduce_op_from_string(std::string_view s) {
  for (ReduceOp op : kAllReduceOps)
    if (to_string(op) == s) return op;
  throw std::invalid_argument("unknown reduction '" + std::string(s) +
                              "' (expected sum, prod, min, max or avg)");
}

}  // namespace hn::stack::op
