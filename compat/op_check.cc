#include "compat/op_check.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <tuple>

namespace hn::compat {

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::kSupported:
      return "supported";
    case OpClass::kNoKernel:
      return "no-kernel";
    case OpClass::kDecomposed:
      return "supported-by-decomposition";
    case OpClass::kUnsupportedOp:
      return "unsupported-op";
    case OpClass::kUnsupportedDtype:
      return "unsupported-dtype";
    case OpClass::kConstraintViolated:
      return "constraint-violated";
    case OpClass::kUnknownMapping:
      return "unknown-mapping";
  }
  return "?";
}

const char* finding_code(OpClass c) {
  switch (c) {
    case OpClass::kSupported:
      return "OP-SUPPORTED";
    case OpClass::kNoKernel:
      return "OP-NO-KERNEL";
    case OpClass::kDecomposed:
      return "OP-DECOMPOSED";
    case OpClass::kUnsupportedOp:
      return "OP-UNSUPPORTED-TYPE";
    case OpClass::kUnsupportedDtype:
      return "OP-UNSUPPORTED-DTYPE";
    case OpClass::kConstraintViolated:
      return "OP-CONSTRAINT";
    case OpClass::kUnknownMapping:
      return "OP-UNKNOWN-MAPPING";
  }
  return "?";
}

bool is_unsupported(OpClass c) {
  return c == OpClass::kUnsupportedOp || c == OpClass::kUnsupportedDtype ||
         c == OpClass::kConstraintViolated;
}

const char* to_string(InventoryKind k) {
  switch (k) {
    case InventoryKind::kOnnx:
      return "onnx";
    case InventoryKind::kTrace:
      return "trace";
    case InventoryKind::kOpList:
      return "op-list";
  }
  return "?";
}

namespace {

std::string violated(const OpConstraints& c, const OpOccurrence& o) {
  if (o.rank) {
    if (c.min_rank && *o.rank < *c.min_rank)
      return "rank " + std::to_string(*o.rank) + " below min " + std::to_string(*c.min_rank);
    if (c.max_rank && *o.rank > *c.max_rank)
      return "rank " + std::to_string(*o.rank) + " above max " + std::to_string(*c.max_rank);
  }
  if (o.opset > 0) {
    if (c.min_opset && o.opset < *c.min_opset)
      return "opset " + std::to_string(o.opset) + " below min " + std::to_string(*c.min_opset);
    if (c.max_opset && o.opset > *c.max_opset)
      return "opset " + std::to_string(o.opset) + " above max " + std::to_string(*c.max_opset);
  }
  // An attribute the node does not set takes the op's default, which the
  // opset range already pins down.
  for (const auto& [name, allowed] : c.attributes) {
    auto it = o.attributes.find(name);
    if (it == o.attributes.end()) continue;
    if (std::find(allowed.begin(), allowed.end(), it->second) != allowed.end()) continue;
    std::string set;
    for (const auto& v : allowed) set += (set.empty() ? "" : ", ") + v;
    return name + "=" + it->second + " not in {" + set + "}";
  }
  return {};
}

const char* naming_name(OpNaming n) {
  switch (n) {
    case OpNaming::kOnnx:
      return "onnx";
    case OpNaming::kAten:
      return "aten";
    case OpNaming::kMatrix:
      return "matrix";
  }
  return "?";
}

}  // namespace

OpVerdict check_occurrence(const OpMatrix& matrix, const std::string& matrix_op,
                           const OpOccurrence& o) {
  if (matrix_op.empty()) return {OpClass::kUnknownMapping, {}};
  const OpMatrixEntry* e = matrix.find(matrix_op);
  if (!e || e->dtypes.empty()) return {OpClass::kUnsupportedOp, {}};
  if (!o.dtype.empty() && !e->supports(o.dtype)) return {OpClass::kUnsupportedDtype, {}};
  if (std::string v = violated(e->constraints, o); !v.empty())
    return {OpClass::kConstraintViolated, v};
  return {OpClass::kSupported, {}};
}

namespace {

bool can_run(OpClass c) {
  return c == OpClass::kSupported || c == OpClass::kDecomposed || c == OpClass::kNoKernel;
}

std::string op_and_dtype(const OpOccurrence& o) {
  return display_name(o) + " " + (o.dtype.empty() ? "(dtype unknown)" : o.dtype);
}

void add_distinct(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// The verdict of one occurrence with its nested calls: a composite that does
// not run as itself runs as its decomposition when every nested occurrence
// runs (recursively); otherwise it keeps its own verdict, and `blocking` names
// the nested occurrences that do not run.
struct Evaluated {
  OpVerdict verdict;
  OpClass own = OpClass::kSupported;
  std::vector<std::size_t> blocking;
};

std::vector<Evaluated> evaluate(const OpMatrix& matrix, const OpMapping& mapping,
                                const OpInventory& inv) {
  const std::size_t n = inv.ops.size();
  std::vector<Evaluated> out(n);
  enum : char { kNew, kBusy, kDone };
  std::vector<char> state(n, kNew);
  std::function<void(std::size_t)> visit = [&](std::size_t i) {
    state[i] = kBusy;
    const OpOccurrence& o = inv.ops[i];
    Evaluated e;
    e.verdict = mapping.no_kernel(o) ? OpVerdict{OpClass::kNoKernel, {}}
                                     : check_occurrence(matrix, mapping.resolve(o).value_or(""), o);
    e.own = e.verdict.cls;
    if (!o.children.empty() && e.verdict.cls != OpClass::kSupported) {
      for (std::size_t c : o.children) {
        // The trace reader never makes a cycle; a hand-made inventory with one
        // (or an index out of range) cannot prove that the child runs.
        if (c < n && state[c] == kNew) visit(c);
        if (c >= n || state[c] != kDone || !can_run(out[c].verdict.cls)) e.blocking.push_back(c);
      }
      if (e.blocking.empty()) e.verdict = {OpClass::kDecomposed, {}};
    }
    out[i] = std::move(e);
    state[i] = kDone;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (state[i] == kNew) visit(i);
  return out;
}

}  // namespace

OpCheckResult check_inventory(const OpMatrix& matrix, const OpMapping& mapping,
                              const OpInventory& inv) {
  OpCheckResult r;
  r.file = inv.file;
  r.kind = inv.kind;
  r.detail = inv.detail;
  r.notes = inv.notes;
  r.total_self_us = inv.total_self_us;
  const std::vector<Evaluated> verdicts = evaluate(matrix, mapping, inv);
  std::map<std::tuple<std::string, std::string>, std::size_t> index;
  for (std::size_t i = 0; i < inv.ops.size(); ++i) {
    const OpOccurrence& o = inv.ops[i];
    std::string name = display_name(o);
    auto [it, fresh] = index.try_emplace({name, o.dtype}, r.pairs.size());
    if (fresh) {
      OpPairResult p;
      p.op = name;
      p.naming = naming_name(o.naming);
      p.dtype = o.dtype;
      p.matrix_op = mapping.resolve(o).value_or("");
      p.first_position = o.position;
      if (const OpMatrixEntry* e = matrix.find(p.matrix_op)) {
        p.supported_dtypes = e->dtypes;
        p.constraints = describe(e->constraints);
        p.replacement = e->replacement;
        p.notes = e->notes;
      }
      if (p.replacement.empty()) p.replacement = matrix.default_replacement;
      r.pairs.push_back(std::move(p));
    }
    OpPairResult& p = r.pairs[it->second];
    const Evaluated& v = verdicts[i];
    p.cls = std::max(p.cls, v.verdict.cls);
    if (v.verdict.cls == OpClass::kDecomposed) p.own_cls = std::max(p.own_cls, v.own);
    if (!v.verdict.violation.empty()) add_distinct(p.violations, v.verdict.violation);
    for (std::size_t c : o.children)
      if (c < inv.ops.size()) add_distinct(p.nested, op_and_dtype(inv.ops[c]));
    for (std::size_t c : v.blocking)
      if (c < inv.ops.size())
        add_distinct(p.blocking,
                     op_and_dtype(inv.ops[c]) + " (" + to_string(verdicts[c].verdict.cls) + ")");
    if (inv.kind != InventoryKind::kTrace) p.where.push_back(o.where);
    // A composite's work is done by the calls nested in it, which are counted
    // themselves; counting it too would count that work twice.
    (o.children.empty() ? p.occurrences : p.composite_calls) += o.count;
    p.total_us += o.total_us;
    p.self_us += o.self_us;
    p.first_position = std::min(p.first_position, o.position);
    p.last_position = std::max(p.last_position, o.last_position);
  }
  for (const auto& p : r.pairs) {
    ++r.pairs_by_class[p.cls];
    r.occurrences_by_class[p.cls] += p.occurrences;
    if (p.cls == OpClass::kNoKernel) {
      r.no_kernel_occurrences += p.occurrences;
      continue;  // never counted against (or for) support
    }
    r.total_occurrences += p.occurrences;
    r.composite_calls += p.composite_calls;
    if (is_unsupported(p.cls)) r.unsupported_self_us += p.self_us;
  }
  return r;
}

std::string problem_text(OpClass c, const std::map<std::string, std::string>& params) {
  // Keep in step with the problem templates in reports/catalog_ops.cc.
  const char* tmpl = "";
  switch (c) {
    case OpClass::kSupported:
      tmpl = "{op} is supported on {backend} for {supported}, but its dtype is unknown; {where}";
      break;
    case OpClass::kNoKernel:
      tmpl =
          "{op} is not run as a kernel on any backend (a constant, identity, shape query, "
          "view or allocation); {where}";
      break;
    case OpClass::kDecomposed:
      tmpl =
          "{op} ({dtype}) runs on {backend} only as the ops nested in it ({op} itself: {own}); "
          "{where}";
      break;
    case OpClass::kUnsupportedOp:
      tmpl = "unsupported operator type {op} on {backend}; {where}";
      break;
    case OpClass::kUnsupportedDtype:
      tmpl = "{op} does not support dtype {dtype} on {backend} (supported: {supported}); {where}";
      break;
    case OpClass::kConstraintViolated:
      tmpl = "{op} ({dtype}) is outside {backend}'s constraints: {violation}; {where}";
      break;
    case OpClass::kUnknownMapping:
      tmpl =
          "no mapping from {naming} operator {op} to a name in {backend}'s matrix, so its "
          "support is unknown; {where}";
      break;
  }
  std::string out;
  for (const char* p = tmpl; *p; ++p) {
    if (*p != '{') {
      out += *p;
      continue;
    }
    const char* end = p;
    while (*end && *end != '}') ++end;
    std::string name(p + 1, end);
    auto it = params.find(name);
    if (it == params.end()) throw std::logic_error("problem_text: no parameter {" + name + "}");
    out += it->second;
    p = end;
  }
  return out;
}

}  // namespace hn::compat
