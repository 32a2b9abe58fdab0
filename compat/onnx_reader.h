#pragma once
// Reads the operators of an ONNX model with libonnx (protobuf): every node's
// op type, domain and the opset of that domain, walking the subgraphs of If,
// Loop and Scan (and any other graph attribute) recursively. Each node's dtype
// is the element type of its first typed input (or, with no typed input, of
// its first output), taken from graph inputs, outputs, value_info,
// initializers and Constant nodes, with ONNX shape inference filling
// value_info where the file lacks it.
//
// Throws InputError (file, field, what) when the file cannot be read or is not
// a model: protobuf does not parse (truncated or corrupt), there is no graph,
// or opset_import is missing where the IR version requires it. Shape
// inference that stops part-way is not an error: the inventory keeps what is
// known and says so in notes.

#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

OpInventory read_onnx_file(const std::string& path);
// The same for bytes already in memory; source_name is used in errors.
OpInventory read_onnx_bytes(const std::string& bytes, const std::string& source_name);

// "f32" for ONNX TensorProto.DataType 1 (FLOAT) and so on; "dtype<N>" for a
// code this table does not know, "" for 0 (UNDEFINED).
std::string onnx_dtype_name(int code);

}  // namespace hn::compat
