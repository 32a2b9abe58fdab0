#pragma once
// What a model uses, as read from its files: every operator occurrence with
// the facts a backend's operator matrix is checked against. The readers
// (onnx_reader.h, trace_reader.h, op_list_reader.h) produce it; op_check.h
// classifies it. Plain data, no I/O.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hn::compat {

// Which naming an op comes in; the mapping table (op_mapping.h) turns the
// first two into matrix names.
enum class OpNaming { kOnnx, kAten, kMatrix };

enum class InventoryKind { kOnnx, kTrace, kOpList };
const char* to_string(InventoryKind k);  // "onnx", "trace", "op-list"

// One place an op occurs. For ONNX it is a node, for a trace all calls of
// one (op, dtype, rank) with their count and time, for an op list one line.
struct OpOccurrence {
  OpNaming naming = OpNaming::kMatrix;
  std::string op;      // "Softmax", "aten::mm", "softmax"
  std::string domain;  // ONNX domain, "ai.onnx" for the default ("" in the file)
  int opset = 0;       // ONNX opset of that domain; 0 when not applicable
  // The op's element type in the matrix vocabulary (f32, f64, f16, bf16, i8,
  // i16, i32, i64, u8, u16, u32, u64, bool, string, c64, c128, ...); empty
  // when the source does not say.
  std::string dtype;
  std::optional<int> rank;  // rank of the op's first tensor input, when known
  // Scalar attributes as text (ints "3", floats "0.5", strings as-is, int
  // lists "1,0,2"); subgraph and tensor attributes are left out.
  std::map<std::string, std::string> attributes;
  std::string where;       // node path "If_0/then_branch/Add_1", "aten::mm", "ops.txt:3"
  int position = 0;        // 1-based node index in walk order, event index, or file line
  int last_position = 0;   // the last such index (traces aggregate many events)
  std::int64_t count = 1;  // calls (traces) or 1
  double total_us = 0;     // inclusive time of all calls (traces)
  double self_us = 0;      // time not spent in nested cpu_op calls (traces)
  // Traces: the occurrences (indices into OpInventory::ops) of the aten:: ops
  // called directly inside these calls. Empty for a leaf (innermost) op; a
  // composite such as aten::linear lists aten::t and aten::addmm. Occurrence
  // counts cover leaves only, since a composite's work is done by its nested
  // calls (op_check.h). Trace occurrences are grouped by their whole nested
  // call tree, so every call of one occurrence nests the same ops and an
  // index always points to an occurrence that comes from deeper calls: the
  // graph has no cycles.
  std::vector<std::size_t> children;
};

struct OpInventory {
  InventoryKind kind = InventoryKind::kOpList;
  std::string file;
  std::string detail;  // "ir_version 7, opset ai.onnx 14", "trace, 120 cpu_op events"
  std::vector<OpOccurrence> ops;
  // Traces: self time of every cpu_op (aten:: or not), the denominator of the
  // share of time. 0 for models and op lists.
  double total_self_us = 0;
  std::vector<std::string> notes;  // e.g. shape inference could not complete
};

}  // namespace hn::compat
