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
// An aten op that is not listed is looked up again without a trailing "_"
// (aten::relu_ is the in-place aten::relu). Matrix names (OpNaming::kMatrix)
// map to themselves. Parsing is strict and throws InputError with file:line.

#include <map>
#include <optional>
#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

struct OpMapping {
  std::string source;
  std::map<std::string, std::string> onnx;  // "MatMul" or "com.microsoft::Gelu" -> name
  std::map<std::string, std::string> aten;  // "aten::mm" -> name

  // The matrix name for an occurrence, or nullopt when the table has none.
  std::optional<std::string> resolve(const OpOccurrence& o) const;
};

OpMapping parse_op_mapping(const std::string& text, const std::string& source_name);

// "Softmax", "com.microsoft::Gelu", "aten::mm", "softmax": how reports name
// an op (the ONNX domain only when it is not ai.onnx).
std::string display_name(const OpOccurrence& o);

}  // namespace hn::compat
