// Catalog entries for operator compatibility (`hnprecheck ops` and the L4
// executor). The problem templates of the OP-* pair codes are repeated in
// compat/op_check.cc (problem_text) for the stack's typed error; a test checks
// that both render the same sentence.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kOpsEntries[] = {
    {"OP-SUPPORTED", Layer::kL4, "operator supported by the backend",
     "{op} ({dtype}) is supported on {backend}; {where}",
     "{op} is supported on {backend} for {supported}, but its dtype is unknown; {where}",
     "Export the model with value_info (or record the trace with record_shapes=True) so the "
     "dtype is known, then re-run."},
    // Constants, identities, shape queries, views, allocations: no backend
    // runs them as kernels, so they are reported apart and never counted
    // against (or for) support. Both sentences are compat::problem_text's.
    {"OP-NO-KERNEL", Layer::kL4, "operator that no backend runs as a kernel",
     "{op} is not run as a kernel on any backend (a constant, identity, shape query, view or "
     "allocation); {where}",
     "{op} is not run as a kernel on any backend (a constant, identity, shape query, view or "
     "allocation); {where}",
     "Nothing to do: it is not counted against {backend}."},
    {"OP-DECOMPOSED", Layer::kL4, "composite operator runs as the ops nested in it",
     "{op} ({dtype}) runs on {backend} as the ops nested in it, which all run there ({op} "
     "itself: {own}); {where}",
     "{op} ({dtype}) runs on {backend} only as the ops nested in it ({op} itself: {own}); "
     "{where}",
     "Nothing to do unless {op} should run as one kernel on {backend}: {replacement}."},
    {"OP-UNSUPPORTED-TYPE", Layer::kL4, "operator type known to the backend",
     "{op} is an operator type {backend} supports; {where}",
     "unsupported operator type {op} on {backend}; {where}",
     "Replace {op} before moving to {backend}: {replacement}."},
    {"OP-UNSUPPORTED-DTYPE", Layer::kL4, "operator dtype supported by the backend",
     "{op} supports dtype {dtype} on {backend}; {where}",
     "{op} does not support dtype {dtype} on {backend} (supported: {supported}); {where}",
     "Cast {op}'s inputs to one of {supported} (and back after it), or: {replacement}."},
    {"OP-CONSTRAINT", Layer::kL4, "operator within the backend's constraints",
     "{op} ({dtype}) is within {backend}'s constraints; {where}",
     "{op} ({dtype}) is outside {backend}'s constraints: {violation}; {where}",
     "Bring {op} within {constraints}, or: {replacement}."},
    {"OP-UNKNOWN-MAPPING", Layer::kL4, "operator mapped to the backend's matrix",
     "{op} maps to {backend}'s matrix; {where}",
     "no mapping from {naming} operator {op} to a name in {backend}'s matrix, so its support "
     "is unknown; {where}",
     "Add {op} to the mapping table (profiles/ops/mapping.yaml) or list it by its matrix name "
     "in an op list, then re-run."},
    {"OP-MODEL-EMPTY", Layer::kL4, "the input holds operators",
     "{file} holds {total} op occurrences",
     "{file} holds no operators ({source}), so it proves nothing about {backend}",
     "For a torch.profiler trace, record CPU activity with record_shapes=True so that cpu_op "
     "aten:: events are written; for a model or op list, check that it is the right file."},
    {"OP-MODEL-SUMMARY", Layer::kL4, "every operator of the model supported",
     "all {total} op occurrences ({pairs} op/dtype pairs) are supported on {backend}"
     "{time}{composites}{no_kernel}",
     "{unsupported} of {total} op occurrences ({share}) in {unsupported_pairs} of "
     "{pairs} op/dtype pairs are not supported on {backend}{time}; {unknown} with unknown "
     "mapping{composites}{no_kernel}",
     "Start with the FAIL findings above that cover the most occurrences or time; "
     "re-run `hnprecheck ops` after each change."},
};
}  // namespace

std::span<const CatalogEntry> ops() {
  return kOpsEntries;
}

}  // namespace hn::reports::catalog_parts
