#pragma once
// Picks the reader for a user's model file: ONNX (.onnx), a Chrome trace
// (.json), an op list in YAML (.yaml, .yml) or text (.txt, .ops, .list).
// Other names are sniffed: a first non-blank byte of '{' or '[' is a trace,
// bytes that are not text are ONNX, anything else an op list in text.
// Throws InputError from the chosen reader, or for an unknown forced format.

#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

enum class SourceFormat { kAuto, kOnnx, kTrace, kOpListYaml, kOpListText };
// "auto", "onnx", "trace", "yaml", "text"; throws InputError (field --format).
SourceFormat source_format_from_string(const std::string& s);

OpInventory read_op_source(const std::string& path, SourceFormat format = SourceFormat::kAuto);

}  // namespace hn::compat
