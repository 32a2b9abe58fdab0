// RuleBook: the tables in effect and how includes/extends combine them.
#include <algorithm>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/embedded_rules.h"
#include "compat/translate/rules.h"
#include "compat/translate/rules_toml.h"

namespace hn::compat::translate {

std::string MapRow::id() const {
  std::string s;
  for (const auto& f : from) s += (s.empty() ? "" : "+") + f;
  return s;
}

const MapRow* RuleSet::row_for(const std::string& source_var) const {
  for (const auto& r : rows)
    if (std::find(r.from.begin(), r.from.end(), source_var) != r.from.end()) return &r;
  return nullptr;
}

const VarSpec* RuleSet::target(const std::string& name) const {
  auto it = target_vars.find(name);
  return it == target_vars.end() ? nullptr : &it->second;
}

const VarSpec* RuleSet::source(const std::string& name) const {
  auto it = source_vars.find(name);
  return it == source_vars.end() ? nullptr : &it->second;
}

RuleBook RuleBook::load(const std::vector<std::string>& override_files) {
  RuleBook book;
  for (const auto& f : embedded_rule_files())
    book.add_table_text(f.text, std::string("embedded:") + f.name);
  for (const auto& path : override_files) book.add_table_text(read_text_file(path), path);
  return book;
}

void RuleBook::add_table_text(const std::string& text, const std::string& file) {
  ParsedTable t = parse_rule_table(text, file);
  if (t.library)
    libraries_[t.library->name] = std::move(*t.library);
  else
    maps_[t.map->name] = std::move(*t.map);
}

void RuleBook::collect_vars(const std::string& lib, std::map<std::string, VarSpec>& out,
                            std::vector<std::string>& seen) const {
  if (std::find(seen.begin(), seen.end(), lib) != seen.end()) return;
  seen.push_back(lib);
  auto it = libraries_.find(lib);
  if (it == libraries_.end())
    throw InputError("rules", 0, 0, "extends", "no library table named '" + lib + "'");
  for (const auto& base : it->second.extends) collect_vars(base, out, seen);
  for (const auto& [name, spec] : it->second.vars) out[name] = spec;  // own rows replace
}

std::map<std::string, VarSpec> RuleBook::library_vars(const std::string& name) const {
  std::map<std::string, VarSpec> out;
  std::vector<std::string> seen;
  collect_vars(name, out, seen);
  return out;
}

void RuleBook::collect_rows(const std::string& table, std::vector<MapRow>& out,
                            std::vector<std::string>& seen, std::vector<std::string>& names) const {
  if (std::find(seen.begin(), seen.end(), table) != seen.end()) return;
  seen.push_back(table);
  auto it = maps_.find(table);
  if (it == maps_.end())
    throw InputError("rules", 0, 0, "include", "no map table named '" + table + "'");
  for (const auto& inc : it->second.include) collect_rows(inc, out, seen, names);
  names.push_back(table);
  for (const auto& row : it->second.rows) {
    auto same =
        std::find_if(out.begin(), out.end(), [&](const MapRow& r) { return r.id() == row.id(); });
    if (same != out.end())
      *same = row;
    else
      out.push_back(row);
  }
}

RuleSet RuleBook::for_check(const std::string& to) const {
  if (!libraries_.count(to))
    throw InputError("command line", 0, 0, "--to", "no rules for library '" + to + "'");
  RuleSet rs;
  rs.to = to;
  rs.target_vars = library_vars(to);
  rs.source_vars = rs.target_vars;
  // Cross rules and the process-group default come from the target and what it extends.
  std::vector<std::string> chain;
  std::map<std::string, VarSpec> unused;
  collect_vars(to, unused, chain);
  for (const auto& lib : chain) {
    const Library& l = libraries_.at(lib);
    rs.cross.insert(rs.cross.end(), l.cross.begin(), l.cross.end());
    if (!rs.pg_timeout_default_s && l.pg_timeout_default_s) {
      rs.pg_timeout_default_s = l.pg_timeout_default_s;
      rs.pg_timeout_plus_var = l.pg_timeout_plus_var;
      rs.pg_timeout_source = l.pg_timeout_source;
    }
  }
  return rs;
}

RuleSet RuleBook::for_translation(const std::string& from, const std::string& to) const {
  // "rccl,torch": a job that uses several libraries (a ROCm job with torch's
  // own settings); the tables are merged, the first named winning a
  // variable that two of them translate.
  std::vector<std::string> froms;
  for (std::size_t start = 0;;) {
    std::size_t comma = from.find(',', start);
    froms.push_back(from.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& f : froms)
    if (!maps_.count(f + "-to-" + to)) {
      std::string names;
      for (const auto& [n, m] : maps_) names += (names.empty() ? "" : ", ") + n;
      throw InputError("command line", 0, 0, "--from/--to",
                       "no rules translate " + (f.empty() ? "''" : f) + " to " + to +
                           " (tables: " + names + ")");
    }
  RuleSet rs = for_check(to);
  rs.from = from;
  rs.source_vars.clear();
  std::vector<std::string> seen;
  for (auto it = froms.rbegin(); it != froms.rend(); ++it)
    collect_rows(*it + "-to-" + to, rs.rows, seen, rs.tables);
  for (const auto& name : rs.tables)
    for (auto& [var, spec] : library_vars(maps_.at(name).from)) rs.source_vars[var] = spec;
  return rs;
}

std::vector<std::string> RuleBook::libraries_knowing(const std::string& var) const {
  std::vector<std::string> out;
  for (const auto& [name, lib] : libraries_) {
    bool knows = lib.vars.count(var) > 0;
    for (const auto& p : lib.prefixes) knows = knows || var.rfind(p, 0) == 0;
    if (knows) out.push_back(name);
  }
  return out;
}

const std::vector<std::string>& known_platforms() {
  // A2/A3 first: the default, and the strictest HCCL ranges (H-RT, H-ET).
  static const std::vector<std::string> k = {
      "a2", "a3", "atlas-training", "atlas-inference", "atlas-350", "atlas-950"};
  return k;
}

EffectiveRange effective_range(const VarSpec& v, const std::string& platform) {
  EffectiveRange r{v.min, v.max, v.min_exclusive, v.step, v.values};
  for (const auto& p : v.platforms) {
    if (std::find(p.platforms.begin(), p.platforms.end(), platform) == p.platforms.end()) continue;
    if (p.min) r.min = p.min;
    if (p.max) r.max = p.max;
    if (p.min_exclusive) r.min_exclusive = *p.min_exclusive;
    if (p.step) r.step = *p.step;
    if (!p.values.empty()) r.values = p.values;
  }
  return r;
}

std::string range_text(const EffectiveRange& r) {
  if (!r.min && !r.max) return "any";
  std::string lo = r.min ? std::to_string(*r.min) : "-inf";
  std::string hi = r.max ? std::to_string(*r.max) : "inf";
  std::string s = (r.min_exclusive ? "(" : "[") + lo + ", " + hi + (r.max ? "]" : ")");
  if (r.step) s += " in steps of " + std::to_string(r.step);
  return s;
}

}  // namespace hn::compat::translate
