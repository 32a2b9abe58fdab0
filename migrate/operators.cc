// Concern 1, operators: what `hnprecheck ops` says about the job's model on
// the target's operator matrix, with the share of the model's nodes each
// class covers. An operator that cannot run (no kernel, no kernel for the
// dtype, outside its constraints) blocks the move.
#include <cstdio>

#include "compat/builtin_ops.h"
#include "compat/op_check.h"
#include "compat/op_sources.h"
#include "migrate/concerns.h"
#include "probes/op_findings.h"
#include "reports/catalog.h"

namespace hn::migrate {

namespace {

std::string backend_names() {
  std::string out;
  for (const auto& n : compat::builtin_matrix_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string percent(std::int64_t part, std::int64_t whole) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return b;
}

}  // namespace

Concern check_operators(const Job& job, std::vector<reports::OperatorShare>& shares) {
  Concern c("operators", "Operators");
  if (!job.model) {
    c.add(reports::make_finding(
        "MIG-OPS-NO-MODEL", reports::Status::kWarn, "model",
        {{"model", "-"}, {"backend", job.matrix ? job.matrix->backend : "the target"}}));
    c.set_summary("not checked: the job names no model");
    return c;
  }
  if (!job.matrix) {
    c.add(reports::make_finding("MIG-OPS-NO-MATRIX", reports::Status::kWarn, "matrix",
                                {{"model", job.model->value}, {"backends", backend_names()}}));
    c.set_summary("not checked: the target's operator matrix is not named");
    return c;
  }
  const compat::OpMatrix& matrix = *job.matrix;
  const compat::OpMapping& mapping = job.mapping ? *job.mapping : compat::builtin_mapping();
  compat::OpCheckResult r = compat::check_inventory(
      matrix, mapping,
      compat::read_op_source(job.model->value,
                             compat::source_format_from_string(job.model_format)));

  reports::OperatorShare share;
  share.file = r.file;
  share.total = r.total_occurrences;
  for (const auto& [cls, n] : r.occurrences_by_class) share.by_class[compat::to_string(cls)] = n;
  shares.push_back(share);

  std::int64_t cannot = 0, unknown = 0;
  std::string names;
  for (const auto& p : r.pairs) {
    if (p.cls == compat::OpClass::kUnknownMapping) unknown += p.occurrences;
    if (!compat::is_unsupported(p.cls)) continue;
    cannot += p.occurrences;
    names += (names.empty() ? "" : ", ") + p.op + (p.dtype.empty() ? "" : " " + p.dtype);
  }
  for (auto& f : probes::op_findings(r, matrix, false)) {
    const bool summary = f.code == "OP-MODEL-SUMMARY";
    const bool blocking = f.code == "OP-UNSUPPORTED-TYPE" || f.code == "OP-UNSUPPORTED-DTYPE" ||
                          f.code == "OP-CONSTRAINT" || summary;
    Item& item = c.add(std::move(f), blocking, job.model->value);
    // The summary repeats the per-operator findings: no change of its own.
    item.listed = !summary;
  }
  const std::string unit = r.kind == compat::InventoryKind::kTrace ? "calls" : "nodes";
  const std::string of = " of " + std::to_string(r.total_occurrences) + " " + unit;
  std::string summary =
      cannot > 0 ? std::to_string(cannot) + of + " (" + percent(cannot, r.total_occurrences) +
                       ") cannot run on " + matrix.backend + ": " + names
      : unknown > 0
          ? "no operator is known to fail on " + matrix.backend
          : "all " + std::to_string(r.total_occurrences) + " " + unit + " run on " + matrix.backend;
  if (unknown > 0)
    summary += "; " + std::to_string(unknown) + of + " have no mapping to the matrix";
  c.set_summary(summary);
  return c;
}

}  // namespace hn::migrate
