#pragma once
// The mapping table (profiles/ops/mapping.yaml) from the names models use to
// the matrix vocabulary, shared by every backend's matrix:
//
//   version: 1
//   onnx:                      # op type (domain ai.onnx) or "domain::OpType"
//     MatMul: matmul
//     com.microsoft::Gelu: gelu
//   aten:
//     aten::mm: matmul
//
// An aten op is looked up without its overload name (aten::add.Tensor is
// aten::add), then again without a trailing "_" (aten::relu_ is the in-place
// aten::relu). Matrix names (OpNaming::kMatrix) map to themselves.
//
//   no_kernel:                 # ops no backend runs as a kernel: constants,
//     onnx: [Constant, ...]    # identities, shape queries, views, allocations
//     aten: ["aten::view", ...]
//
// Parsing is strict and throws InputError with file:line.

#include <map>
#include <optional>
#include <set>
#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

struct OpMapping {
  std::string source;
  std::map<std::string, std::string> onnx;  // "MatMul" or "com.microsoft::Gelu" -> name
  std::map<std::string, std::string> aten;  // "aten::mm" -> name
  // Ops that are metadata, views or allocations (Constant, Shape,
  // aten::as_strided, aten::empty_strided, ...): no backend executes them as
  // kernels, so they are their own class and never count against support.
  std::set<std::string> no_kernel_onnx, no_kernel_aten;

  // The matrix name for an occurrence, or nullopt when the table has none.
  std::optional<std::string> resolve(const OpOccurrence& o) const;
  bool no_kernel(const OpOccurrence& o) const;
};

OpMapping parse_op_mapping(const std::string& text, const std::string& source_name);

// "aten::add.Tensor" -> "aten::add": the op without its overload name.
std::string aten_base(const std::string& op);

// "Softmax", "com.microsoft::Gelu", "aten::mm", "softmax": how reports name
// an op (the ONNX domain only when it is not ai.onnx).
std::string display_name(const OpOccurrence& o);

}  // namespace hn::compat
