#pragma once
// Reads a hand-made operator inventory, as YAML or as plain text.
//
// Text: one op per line, `OP [DTYPE] [COUNT]`, blank lines and `#` comments
// ignored:
//     aten::mm bf16 120
//     Softmax f32
//     layernorm
// YAML: {version: 1, ops: [...]} where each entry is an op name or a map
//     {op: Softmax, dtype: f32, count: 3, rank: 2, opset: 13, domain: ai.onnx,
//      attributes: {axis: -1}}
// Op names are read by their form: `aten::x` is a PyTorch op, `domain::Op` or
// a name starting with an upper-case letter is an ONNX op type (domain
// ai.onnx unless given), anything else is a matrix name used as-is.
//
// Throws InputError with file:line and the field for anything else: an
// unknown key, a count that is not a positive integer, extra words on a line.

#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

OpInventory read_op_list_yaml(const std::string& text, const std::string& source_name);
OpInventory read_op_list_text(const std::string& text, const std::string& source_name);

// Sets naming/op/domain of o from a user-written name (the rules above).
void classify_op_name(const std::string& name, OpOccurrence& o);

}  // namespace hn::compat
