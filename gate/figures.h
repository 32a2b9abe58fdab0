#pragma once
// The directions of figures whose producer states none: the rows of `bench
// --json` and the metrics of findings in JSON reports. Data, not code: the
// table is profiles/gate/figures.toml, compiled in. A figure no row names has
// no known direction, and the gate says so instead of guessing from its name.

#include <optional>
#include <string>
#include <vector>

#include "reports/measurement.h"

namespace hn::gate {

struct BenchFigureRow {
  std::string field;  // key of a bench JSON row: "busbw_gbps"
  std::string name;   // figure name: "bench.busbw"
  std::string unit;
  reports::Better better = reports::Better::kNone;
  std::string why;
};

struct FindingFigureRow {
  std::string code;    // glob on the finding code
  std::string metric;  // glob on the metric name
  reports::Better better = reports::Better::kNone;
  std::string why;
  int line = 0;
};

struct FigureTable {
  std::vector<BenchFigureRow> bench;
  std::vector<FindingFigureRow> finding;

  const BenchFigureRow* bench_row(const std::string& field) const;
  // First row whose globs match; nullptr when none does.
  const FindingFigureRow* finding_row(const std::string& code, const std::string& metric) const;
};

// Parses a table; throws compat::InputError (file:line, key) on anything
// malformed or unknown, and on a bench field listed twice.
FigureTable parse_figure_table(const std::string& text, const std::string& file);

// The compiled-in table (parsed once; a malformed embedded table is a build
// defect that a unit test catches).
const FigureTable& builtin_figures();

}  // namespace hn::gate
