#pragma once
// Checks an operator inventory against a backend's matrix. One result per
// distinct (op, dtype) pair of the inventory, classified as
//   supported           the matrix lists the op with this dtype, constraints hold
//   supported-by-decomposition
//                       traces: a composite op (aten:: ops nested inside its
//                       calls, aten::linear -> aten::t + aten::addmm) that is
//                       not supported itself, but every op nested in it is
//                       supported or decomposes in turn; PyTorch runs such an
//                       op as those calls on a backend without its own kernel
//   unsupported-op      the matrix does not list the op (or lists it with no dtypes)
//   unsupported-dtype   the op is listed, this dtype is not
//   constraint-violated some occurrence is outside the op's rank/opset/attribute limits
//   unknown-mapping     the mapping table has no matrix name for the op
//   no-kernel           an op no backend executes as a kernel (Constant,
//                       Identity, Shape, aten::as_strided, aten::empty_strided,
//                       aten::result_type, views): its own class, whatever the
//                       matrix says, and not counted in the occurrences that
//                       the shares of support are taken over
// check_occurrence() is the same test for one occurrence (never
// supported-by-decomposition: that needs the nested calls); the L4 graph
// executor uses it so that a graph fails with the same class, code and words
// as the `ops` finding.
//
// Composites in traces: only leaf (innermost) calls count as occurrences, so
// aten::linear with aten::t and aten::addmm inside is two occurrences, not
// three. A composite that cannot run as itself nor as its nested ops keeps its
// own class (a FAIL stays a FAIL) and names the nested ops that cannot run. A
// composite the matrix supports as itself is supported; the ops nested in it
// are still checked on their own, because the trace shows they ran and the
// matrix cannot say whether the backend's kernel for the composite replaces
// them.
//
// The problem sentences (problem_text) are the catalog's templates for the
// OP-* codes (reports/catalog_ops.cc), repeated here because the stack cannot
// use reports/; tests/probes/op_findings_test.cc checks that they agree.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compat/op_inventory.h"
#include "compat/op_mapping.h"
#include "compat/op_matrix.h"

namespace hn::compat {

// Declared from least to most severe: a pair takes the worst class of its
// occurrences (only the constraint test differs between them).
enum class OpClass {
  kSupported,
  kNoKernel,  // metadata/view/allocation ops (OpMapping::no_kernel): never a kernel
  kDecomposed,
  kUnknownMapping,
  kConstraintViolated,
  kUnsupportedDtype,
  kUnsupportedOp
};
const char* to_string(OpClass c);     // "supported", "supported-by-decomposition", ...
const char* finding_code(OpClass c);  // "OP-SUPPORTED", "OP-DECOMPOSED", ...
// Unsupported-op, unsupported-dtype and constraint-violated: the op cannot run.
bool is_unsupported(OpClass c);

struct OpVerdict {
  OpClass cls = OpClass::kSupported;
  std::string violation;  // constraint-violated: "rank 1 below min 2", "axis=0 not in {-1}"
};

// matrix_op is the mapped matrix name ("" = no mapping). An empty o.dtype
// skips the dtype test; rank, opset and attributes are checked when known.
OpVerdict check_occurrence(const OpMatrix& matrix, const std::string& matrix_op,
                           const OpOccurrence& o);

// Result for one (op, dtype) pair.
struct OpPairResult {
  std::string op;         // display_name(): "Softmax", "aten::mm", "com.microsoft::Gelu"
  std::string naming;     // "onnx", "aten", "matrix"
  std::string dtype;      // "" when the source does not say
  std::string matrix_op;  // "" for unknown-mapping
  OpClass cls = OpClass::kSupported;
  std::vector<std::string> where;       // node paths / op-list lines (not for traces)
  std::vector<std::string> violations;  // distinct, in first-seen order
  std::int64_t occurrences = 0;         // nodes, lines, or trace calls of leaf ops
  // Traces: calls of this op with aten:: ops nested inside (not counted in
  // occurrences), what was nested ("aten::addmm f32"), and which of those
  // cannot run when the op cannot run as itself either ("aten::addmm f32
  // (unsupported-op)"); all distinct, in first-seen order.
  std::int64_t composite_calls = 0;
  std::vector<std::string> nested, blocking;
  // supported-by-decomposition: the op's class as itself (unsupported-op, ...).
  OpClass own_cls = OpClass::kSupported;
  double total_us = 0, self_us = 0;  // traces
  int first_position = 0, last_position = 0;
  // Copied from the matrix entry (empty when the op is not listed).
  std::vector<std::string> supported_dtypes;
  std::string constraints;  // describe(entry.constraints)
  std::string replacement;  // entry's, else the matrix's default_replacement
  std::string notes;
};

struct OpCheckResult {
  std::string file;
  InventoryKind kind = InventoryKind::kOpList;
  std::string detail;
  std::vector<std::string> notes;
  std::vector<OpPairResult> pairs;  // first occurrence order
  std::map<OpClass, std::int64_t> pairs_by_class, occurrences_by_class;
  std::int64_t total_occurrences = 0;  // leaf occurrences only, no-kernel ones left out
  std::int64_t no_kernel_occurrences = 0;
  std::int64_t composite_calls = 0;  // traces: calls with aten:: ops nested inside
  double total_self_us = 0;          // traces: every cpu_op's self time
  double unsupported_self_us = 0;    // traces: self time of unsupported pairs
};

OpCheckResult check_inventory(const OpMatrix& matrix, const OpMapping& mapping,
                              const OpInventory& inventory);

// The problem sentence for a class, from the params the OP-* findings use:
// op, dtype, backend, where, supported, violation, naming, own (see the catalog).
std::string problem_text(OpClass c, const std::map<std::string, std::string>& params);

}  // namespace hn::compat
