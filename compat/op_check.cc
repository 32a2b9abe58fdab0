#include "compat/op_check.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace hn::compat {

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::kSupported:
      return "supported";
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

OpCheckResult check_inventory(const OpMatrix& matrix, const OpMapping& mapping,
                              const OpInventory& inv) {
  OpCheckResult r;
  r.file = inv.file;
  r.kind = inv.kind;
  r.detail = inv.detail;
  r.notes = inv.notes;
  r.total_self_us = inv.total_self_us;
  std::map<std::tuple<std::string, std::string>, std::size_t> index;
  for (const auto& o : inv.ops) {
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
    OpVerdict v = check_occurrence(matrix, p.matrix_op, o);
    p.cls = std::max(p.cls, v.cls);
    if (!v.violation.empty() &&
        std::find(p.violations.begin(), p.violations.end(), v.violation) == p.violations.end())
      p.violations.push_back(v.violation);
    if (inv.kind != InventoryKind::kTrace) p.where.push_back(o.where);
    p.occurrences += o.count;
    p.total_us += o.total_us;
    p.self_us += o.self_us;
    p.first_position = std::min(p.first_position, o.position);
    p.last_position = std::max(p.last_position, o.last_position);
  }
  for (const auto& p : r.pairs) {
    ++r.pairs_by_class[p.cls];
    r.occurrences_by_class[p.cls] += p.occurrences;
    r.total_occurrences += p.occurrences;
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
