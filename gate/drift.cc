#include "gate/drift.h"

#include <fnmatch.h>

#include "compat/toml_input.h"
#include "compat/toml_table.h"
#include "compat/yaml_input.h"
#include "gate/toml_version.h"

namespace hn::gate {

namespace embedded {
extern const char* const kDrift;
}

std::string_view to_string(Impact i) {
  switch (i) {
    case Impact::kSignificant:
      return "significant";
    case Impact::kReview:
      return "review";
    case Impact::kNone:
      return "none";
  }
  return "review";
}

DriftRule parse_drift_row(compat::TomlTable& row, const std::string& file) {
  DriftRule r;
  r.entity = row.required_str("entity");
  r.field = row.required_str("field");
  const std::string impact = row.required_str("impact");
  if (impact == "significant")
    r.impact = Impact::kSignificant;
  else if (impact == "review")
    r.impact = Impact::kReview;
  else if (impact == "none")
    r.impact = Impact::kNone;
  else
    row.fail(*row.get("impact"), row.field("impact"),
             "'" + impact + "' is not an impact (expected significant, review or none)");
  r.why = row.required_str("why");
  r.origin = file + ":" + std::to_string(row.line());
  row.finish();
  return r;
}

std::vector<DriftRule> parse_drift_table(const std::string& text, const std::string& file) {
  const toml::value root = compat::parse_toml_text(text, file);
  compat::TomlTable t(root, file, "");
  require_version_1(t);
  std::vector<DriftRule> out;
  for (auto& row : t.tables("rule")) out.push_back(parse_drift_row(row, file));
  t.finish();
  return out;
}

const std::vector<DriftRule>& builtin_drift_rules() {
  static const std::vector<DriftRule> rules =
      parse_drift_table(embedded::kDrift, "embedded:profiles/gate/drift.toml");
  return rules;
}

std::string drift_field(const formats::DiffEntry& d) {
  return d.field.empty() ? "present" : d.field;
}

std::vector<Drift> classify(const std::vector<formats::DiffEntry>& diffs,
                            std::span<const DriftRule> rules) {
  std::vector<Drift> out;
  out.reserve(diffs.size());
  for (const auto& d : diffs) {
    const std::string field = drift_field(d);
    Drift x{d, Impact::kReview, "no drift rule matches this difference", ""};
    for (const auto& r : rules)
      if (fnmatch(r.entity.c_str(), d.entity.c_str(), 0) == 0 &&
          fnmatch(r.field.c_str(), field.c_str(), 0) == 0) {
        x.impact = r.impact;
        x.why = r.why;
        x.origin = r.origin;
        break;
      }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<formats::DiffEntry> diff_states(const NodeState& baseline, const NodeState& now) {
  return formats::diff_snapshots(
      compat::load_yaml_text(baseline.yaml, "baseline snapshot of " + baseline.host),
      compat::load_yaml_text(now.yaml, "snapshot of " + now.host),
      /*include_volatile=*/true);
}

}  // namespace hn::gate
