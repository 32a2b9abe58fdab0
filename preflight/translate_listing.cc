#include "preflight/translate_listing.h"

#include <sstream>

#include "compat/translate/values.h"

namespace hn::preflight {

namespace tr = compat::translate;

namespace {

void field(std::ostringstream& os, const char* name, const std::string& value) {
  if (!value.empty()) os << "    " << name << ": " << value << "\n";
}

std::string ranges(const tr::RuleSet& rs, const std::vector<std::string>& vars) {
  std::string s;
  for (const auto& v : vars)
    if (const tr::VarSpec* spec = rs.target(v)) {
      std::string r =
          spec->type == "int" ? tr::range_text(tr::effective_range(*spec, "a2")) : spec->type;
      for (const auto& p : spec->platforms) r += "; " + p.note;
      if (spec->multiple_of) r += ", multiple of " + std::to_string(spec->multiple_of);
      // The plausible bounds decide needs-review, so they belong in the listing.
      if (spec->plausible_min) r += ", plausible from " + std::to_string(*spec->plausible_min);
      if (spec->plausible_max) r += ", plausible up to " + std::to_string(*spec->plausible_max);
      s += (s.empty() ? "" : "; ") + v + " " + r +
           (spec->unit.empty() ? "" : " (" + spec->unit + ")");
    }
  return s;
}

}  // namespace

std::string render_rule_listing(const tr::RuleSet& rs) {
  std::ostringstream os;
  if (rs.from.empty())
    os << "Rules of " << rs.to << " (--check)\n\n";
  else
    os << "Rules " << rs.from << " -> " << rs.to << " (tables: " << tr::join(rs.tables, ", ")
       << ")\n\n";
  for (const auto& row : rs.rows) {
    os << row.id() << " -> " << (row.to.empty() ? "(" + row.action + ")" : tr::join(row.to, ", "))
       << "    [" << row.file << ":" << row.line << "]\n";
    if (row.action != "map") field(os, "why", row.why);
    field(os, "unit", row.unit);
    field(os, "range", ranges(rs, row.to));
    field(os, "grammar", row.grammar);
    std::string values;
    for (const auto& [k, v] : row.values) values += (values.empty() ? "" : ", ") + k + "=" + v;
    for (const auto& [k, v] : row.drop_values)
      values += (values.empty() ? "" : ", ") + k + "=(unset)";
    field(os, "values", values);
    if (row.multiply != 1 || row.divide != 1)
      field(os, "scale",
            "x" + std::to_string(row.multiply) + " / " + std::to_string(row.divide) + ", rounded " +
                row.round);
    field(os, "defaults", row.defaults);
    field(os, "source", row.source);
  }
  if (rs.from.empty())
    for (const auto& [name, spec] : rs.target_vars) {
      os << name << "    [" << spec.file << ":" << spec.line << "]\n";
      field(os, "type", spec.type);
      field(os, "range", ranges(rs, {name}));
      field(os, "default", spec.default_value);
      field(os, "meaning", spec.meaning);
      field(os, "source", spec.source);
    }
  os << "\nCross-variable rules of " << rs.to << ":\n";
  for (const auto& c : rs.cross) {
    std::string vars;
    for (const auto& m : c.members) vars += (vars.empty() ? "" : ", ") + m.var;
    os << "  " << c.id << " (" << c.kind << ": " << vars << ")    [" << c.file << ":" << c.line
       << "]\n";
    field(os, "  source", c.source);
  }
  return os.str();
}

}  // namespace hn::preflight
