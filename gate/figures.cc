#include "gate/figures.h"

#include <fnmatch.h>

#include "compat/toml_input.h"
#include "compat/toml_table.h"
#include "gate/toml_version.h"

namespace hn::gate {

namespace embedded {
extern const char* const kFigures;
}

namespace {

reports::Better better_of(compat::TomlTable& t) {
  const std::string s = t.required_str("better");
  try {
    return reports::better_from_string(s);
  } catch (const std::invalid_argument& e) {
    t.fail(*t.get("better"), t.field("better"), e.what());
  }
}

}  // namespace

const BenchFigureRow* FigureTable::bench_row(const std::string& field) const {
  for (const auto& r : bench)
    if (r.field == field) return &r;
  return nullptr;
}

const FindingFigureRow* FigureTable::finding_row(const std::string& code,
                                                 const std::string& metric) const {
  for (const auto& r : finding)
    if (glob(r.code, code) && glob(r.metric, metric)) return &r;
  return nullptr;
}

FigureTable parse_figure_table(const std::string& text, const std::string& file) {
  const toml::value root = compat::parse_toml_text(text, file);
  compat::TomlTable t(root, file, "");
  require_version_1(t);
  FigureTable out;
  for (auto& b : t.tables("bench")) {
    BenchFigureRow r;
    r.field = b.required_str("field");
    r.name = b.required_str("name");
    r.unit = b.required_str("unit");
    r.better = better_of(b);
    r.why = b.required_str("why");
    if (out.bench_row(r.field))
      b.fail(b.value(), b.field("field"), "'" + r.field + "' is listed twice");
    b.finish();
    out.bench.push_back(std::move(r));
  }
  for (auto& f : t.tables("finding")) {
    FindingFigureRow r;
    r.code = f.required_str("code");
    r.metric = f.required_str("metric");
    r.better = better_of(f);
    r.why = f.required_str("why");
    r.line = f.line();
    f.finish();
    out.finding.push_back(std::move(r));
  }
  t.finish();
  return out;
}

const FigureTable& builtin_figures() {
  static const FigureTable table =
      parse_figure_table(embedded::kFigures, "embedded:profiles/gate/figures.toml");
  return table;
}

}  // namespace hn::gate
