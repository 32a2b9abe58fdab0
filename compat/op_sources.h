#pragma once
// Picks the reader for a user's model file by its content first: a gzip file
// (torch.profiler's *.pt.trace.json.gz) is inflated; then a first non-blank
// byte of '{' or '[' is a trace, bytes that are not text are ONNX, whatever
// the name says. Text goes by name: .onnx (reported as a broken model),
// .json (a broken trace), .yaml/.yml or a leading "version:" an op list in
// YAML, anything else an op list in text.
// Throws InputError from the chosen reader, or for an unknown forced format.

#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

enum class SourceFormat { kAuto, kOnnx, kTrace, kOpListYaml, kOpListText };
// "auto", "onnx", "trace", "yaml", "text"; throws InputError (field --format).
SourceFormat source_format_from_string(const std::string& s);

OpInventory read_op_source(const std::string& path, SourceFormat format = SourceFormat::kAuto);

}  // namespace hn::compat
