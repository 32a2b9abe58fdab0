#include "probes/op_findings.h"

#include <algorithm>
#include <cstdio>

#include "reports/catalog.h"

namespace hn::probes {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(double part, double whole) {
  return whole > 0 ? fixed(100.0 * part / whole, 1) + "%" : "0.0%";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

constexpr std::size_t kMaxNamesShown = 5;

}  // namespace

std::string occurrence_text(const compat::OpPairResult& p, const compat::OpCheckResult& r) {
  if (r.kind == compat::InventoryKind::kTrace) {
    const std::int64_t calls = p.occurrences + p.composite_calls;
    std::string s = std::to_string(calls) + (calls == 1 ? " call" : " calls");
    if (p.composite_calls > 0) {
      s = p.occurrences == 0
              ? std::to_string(calls) + (calls == 1 ? " composite call" : " composite calls")
              : s + ", " + std::to_string(p.composite_calls) + " of them composite";
      s += " (runs as " + join(p.nested, ", ") + ")";
    }
    s += ", " + fixed(p.self_us / 1000.0, 3) + " ms self (" + percent(p.self_us, r.total_self_us) +
         " of cpu_op self time)";
    if (!p.blocking.empty())
      s += "; its nested " + std::string(p.blocking.size() == 1 ? "op" : "ops") +
           " cannot run either: " + join(p.blocking, ", ");
    return s;
  }
  bool model = r.kind == compat::InventoryKind::kOnnx;
  std::string s = std::to_string(p.occurrences) + " " +
                  (model ? (p.occurrences == 1 ? "node" : "nodes")
                         : (p.occurrences == 1 ? "entry" : "entries"));
  s += ": ";
  for (std::size_t i = 0; i < p.where.size() && i < kMaxNamesShown; ++i)
    s += (i ? ", " : "") + p.where[i];
  if (p.where.size() > kMaxNamesShown)
    s += " and " + std::to_string(p.where.size() - kMaxNamesShown) + " more";
  return s;
}

std::map<std::string, std::string> op_pair_params(const compat::OpPairResult& p,
                                                  const compat::OpCheckResult& r,
                                                  const compat::OpMatrix& m) {
  std::map<std::string, std::string> params = {
      {"op", p.op},
      {"dtype", p.dtype.empty() ? "dtype unknown" : p.dtype},
      {"backend", m.backend},
      {"where", occurrence_text(p, r)},
      {"supported", p.supported_dtypes.empty() ? "none" : join(p.supported_dtypes, ", ")},
      {"violation", join(p.violations, "; ")},
      {"naming", p.naming},
      {"own", compat::to_string(p.own_cls)},
      {"replacement", p.replacement},
      {"constraints", p.constraints.empty() ? "its constraints" : p.constraints},
      {"class", compat::to_string(p.cls)},
      {"matrix_op", p.matrix_op.empty() ? "-" : p.matrix_op},
      {"matrix", m.source},
      {"file", r.file},
      {"start", std::to_string(p.first_position)},
      {"end", std::to_string(p.last_position)},
  };
  if (!p.notes.empty()) params["notes"] = p.notes;
  if (!p.nested.empty()) params["nested"] = join(p.nested, ", ");
  if (!p.blocking.empty()) params["blocking"] = join(p.blocking, ", ");
  return params;
}

reports::Status op_status(const compat::OpPairResult& p, compat::InventoryKind kind) {
  using compat::OpClass;
  switch (p.cls) {
    case OpClass::kSupported:
      return p.dtype.empty() && kind != compat::InventoryKind::kOpList ? reports::Status::kWarn
                                                                       : reports::Status::kPass;
    case OpClass::kDecomposed:
      // What runs is the nested ops, each with its own finding (and its own
      // WARN when the trace does not say its dtype).
      return reports::Status::kPass;
    case OpClass::kNoKernel:
      return reports::Status::kPass;
    case OpClass::kUnknownMapping:
      return reports::Status::kWarn;
    default:
      return reports::Status::kFail;
  }
}

std::vector<reports::Finding> op_findings(const compat::OpCheckResult& r, const compat::OpMatrix& m,
                                          bool prefix_entities) {
  std::vector<reports::Finding> out;
  const std::string prefix = prefix_entities ? r.file + ": " : "";
  for (const auto& p : r.pairs) {
    auto params = op_pair_params(p, r, m);
    reports::Finding f = reports::make_finding(compat::finding_code(p.cls), op_status(p, r.kind),
                                               prefix + p.op + " " + params["dtype"], params);
    f.metrics["occurrences"] = {static_cast<double>(p.occurrences), ""};
    if (p.composite_calls > 0)
      f.metrics["composite_calls"] = {static_cast<double>(p.composite_calls), ""};
    if (r.kind == compat::InventoryKind::kTrace) {
      f.metrics["self_time"] = {p.self_us / 1000.0, "ms"};
      f.metrics["total_time"] = {p.total_us / 1000.0, "ms"};
    }
    out.push_back(std::move(f));
  }

  using compat::OpClass;
  auto count = [&](OpClass c) {
    auto it = r.occurrences_by_class.find(c);
    return it == r.occurrences_by_class.end() ? std::int64_t{0} : it->second;
  };
  auto pairs = [&](OpClass c) {
    auto it = r.pairs_by_class.find(c);
    return it == r.pairs_by_class.end() ? std::int64_t{0} : it->second;
  };
  std::int64_t unsupported = count(OpClass::kUnsupportedOp) + count(OpClass::kUnsupportedDtype) +
                             count(OpClass::kConstraintViolated);
  std::int64_t unsupported_pairs = pairs(OpClass::kUnsupportedOp) +
                                   pairs(OpClass::kUnsupportedDtype) +
                                   pairs(OpClass::kConstraintViolated);
  bool trace = r.kind == compat::InventoryKind::kTrace;
  std::string time;
  if (trace && unsupported > 0)
    time = ", " + percent(r.unsupported_self_us, r.total_self_us) + " of the cpu_op self time (" +
           fixed(r.unsupported_self_us / 1000.0, 3) + " of " + fixed(r.total_self_us / 1000.0, 3) +
           " ms)";
  else if (trace)
    time = " (" + fixed(r.total_self_us / 1000.0, 3) + " ms cpu_op self time)";
  // Say how a trace was counted when it had composites, so that "N op
  // occurrences" is not read as every aten:: call.
  std::string composites;
  if (r.composite_calls > 0) {
    std::vector<std::string> names;
    for (const auto& p : r.pairs)
      if (p.composite_calls > 0 && std::find(names.begin(), names.end(), p.op) == names.end())
        names.push_back(p.op);
    composites = "; occurrences are innermost ops only: " + std::to_string(r.composite_calls) +
                 (r.composite_calls == 1 ? " composite call" : " composite calls") + " (" +
                 join(names, ", ") + ") counted as the ops nested in " +
                 (r.composite_calls == 1 ? "it" : "them");
  }
  std::map<std::string, std::string> params = {
      {"file", r.file},
      {"composites", composites},
      {"backend", m.backend},
      {"total", std::to_string(r.total_occurrences)},
      {"pairs", std::to_string(r.pairs.size())},
      {"unsupported", std::to_string(unsupported)},
      {"unsupported_pairs", std::to_string(unsupported_pairs)},
      {"share",
       percent(static_cast<double>(unsupported), static_cast<double>(r.total_occurrences))},
      {"unknown", std::to_string(count(OpClass::kUnknownMapping))},
      {"time", time},
      {"no_kernel",
       r.no_kernel_occurrences == 0
           ? ""
           : "; " + std::to_string(r.no_kernel_occurrences) +
                 " occurrences of ops no backend runs as kernels (constants, identities, shape "
                 "queries, views, allocations) are not counted"},
      {"source", std::string(compat::to_string(r.kind)) + ": " + r.detail},
  };
  if (!r.notes.empty()) params["notes"] = join(r.notes, "; ");
  if (r.total_occurrences == 0 && r.no_kernel_occurrences == 0) {
    // A trace recorded without CPU ops, or an empty list, must not read as
    // "everything supported".
    out.push_back(reports::make_finding("OP-MODEL-EMPTY", reports::Status::kWarn, r.file, params));
    return out;
  }
  // A composite can fail with no unsupported leaf under it (its nested op's
  // mapping is unknown): the summary must not pass what a pair fails.
  reports::Status s = unsupported > 0 || unsupported_pairs > 0 ? reports::Status::kFail
                      : count(OpClass::kUnknownMapping) > 0    ? reports::Status::kWarn
                                                               : reports::Status::kPass;
  reports::Finding f = reports::make_finding("OP-MODEL-SUMMARY", s, r.file, params);
  for (OpClass c :
       {OpClass::kSupported, OpClass::kNoKernel, OpClass::kDecomposed, OpClass::kUnsupportedOp,
        OpClass::kUnsupportedDtype, OpClass::kConstraintViolated, OpClass::kUnknownMapping}) {
    f.metrics[std::string("pairs_") + compat::to_string(c)] = {static_cast<double>(pairs(c)), ""};
    f.metrics[std::string("occurrences_") + compat::to_string(c)] = {static_cast<double>(count(c)),
                                                                     ""};
  }
  f.metrics["unsupported_share"] = {
      r.total_occurrences > 0
          ? 100.0 * static_cast<double>(unsupported) / static_cast<double>(r.total_occurrences)
          : 0.0,
      "%"};
  if (trace)
    f.metrics["unsupported_time_share"] = {
        r.total_self_us > 0 ? 100.0 * r.unsupported_self_us / r.total_self_us : 0.0, "%"};
  out.push_back(std::move(f));
  return out;
}

}  // namespace hn::probes
