#pragma once
// Reads the operators of a torch.profiler (kineto) Chrome-trace JSON file, or
// torch_npu's trace_view.json: every complete ("ph": "X") event of category
// cpu_op (older kineto: Operator) named aten::*, grouped by (op, dtype, rank)
// with the number of calls, their inclusive time and their self time (the
// time not spent in cpu_op events nested inside them on the same thread).
// The dtype and rank come from the first tensor argument in args."Input type"
// and args."Input Dims" (present when the profile used record_shapes=True);
// without them the dtype is empty.
//
// Accepts the JSON Object Format ({"traceEvents": [...], ...}) and the JSON
// Array Format ([...]). Throws InputError with file:line:column when the text
// is not JSON, and naming the field (traceEvents[12].dur) when the structure is
// not a trace or a cpu_op event lacks ts/dur. Never reads anything but the file.

#include <string>

#include "compat/op_inventory.h"

namespace hn::compat {

OpInventory read_trace_file(const std::string& path);
OpInventory read_trace_text(const std::string& text, const std::string& source_name);

// The matrix dtype name for a c10 type string of "Input type": "float" ->
// "f32", "c10::BFloat16" -> "bf16", "long int" -> "i64", ...; "" for entries
// that are not tensors ("", "Scalar", "ScalarList", "TensorList", ...); an
// unknown name is returned unchanged so it shows up in the report.
std::string c10_dtype_name(const std::string& type);

}  // namespace hn::compat
