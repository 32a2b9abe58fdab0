#include "compat/op_matrix.h"

#include <algorithm>

#include "compat/text_file.h"
#include "compat/yaml_input.h"

namespace hn::compat {

const std::vector<std::string>& known_dtype_names() {
  static const std::vector<std::string> names = {
      "f32",      "f64",        "f16",    "bf16",       "i8",   "i16",    "i32",   "i64",
      "u8",       "u16",        "u32",    "u64",        "bool", "string", "c64",   "c128",
      "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "u4",   "i4",     "f4e2m1"};
  return names;
}

std::string describe(const OpConstraints& c) {
  std::vector<std::string> parts;
  if (c.min_rank || c.max_rank) {
    if (c.min_rank && c.max_rank && *c.min_rank == *c.max_rank)
      parts.push_back("rank " + std::to_string(*c.min_rank));
    else
      parts.push_back("rank " + (c.min_rank ? std::to_string(*c.min_rank) : "0") + ".." +
                      (c.max_rank ? std::to_string(*c.max_rank) : "any"));
  }
  if (c.min_opset || c.max_opset)
    parts.push_back("opset " + (c.min_opset ? std::to_string(*c.min_opset) : "1") + ".." +
                    (c.max_opset ? std::to_string(*c.max_opset) : "any"));
  for (const auto& [name, values] : c.attributes) {
    std::string s = name + " in {";
    for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + values[i];
    parts.push_back(s + "}");
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

bool OpMatrixEntry::supports(const std::string& dtype) const {
  return std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end();
}

const OpMatrixEntry* OpMatrix::find(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

namespace {

void read_range(YamlMap& parent, const char* key, std::optional<int>& lo, std::optional<int>& hi,
                int max) {
  YAML::Node n = parent.get(key);
  if (!n.IsDefined() || n.IsNull()) return;
  YamlMap m(n, parent.source(), parent.field(key));
  if (auto v = m.opt_int("min", 0, max)) lo = static_cast<int>(*v);
  if (auto v = m.opt_int("max", 0, max)) hi = static_cast<int>(*v);
  m.finish();
  if (lo && hi && *lo > *hi) throw_at(n, parent.source(), parent.field(key), "min is above max");
  if (!lo && !hi) throw_at(n, parent.source(), parent.field(key), "give min, max or both");
}

OpConstraints read_constraints(YAML::Node n, const std::string& source, const std::string& path) {
  OpConstraints c;
  YamlMap m(n, source, path);
  read_range(m, "rank", c.min_rank, c.max_rank, 64);
  read_range(m, "opset", c.min_opset, c.max_opset, 1000);
  YAML::Node attrs = m.get("attributes");
  if (attrs.IsDefined() && !attrs.IsNull()) {
    YamlMap am(attrs, source, m.field("attributes"));
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      std::string key = it->first.Scalar();
      auto values = yaml_string_list(am.get(key), source, am.field(key));
      if (values.empty()) throw_at(it->second, source, am.field(key), "list the allowed values");
      c.attributes[key] = values;
    }
  }
  m.finish();
  return c;
}

OpMatrixEntry read_entry(const std::string& name, YAML::Node n, const std::string& source) {
  OpMatrixEntry e;
  e.name = name;
  e.line = yaml_position(n).first;
  YamlMap m(n, source, "ops." + name);
  YAML::Node dtypes = m.required("dtypes");
  if (!dtypes.IsSequence()) throw_at(dtypes, source, m.field("dtypes"), "expected a list");
  e.dtypes = yaml_string_list(dtypes, source, m.field("dtypes"));
  const auto& known = known_dtype_names();
  for (std::size_t i = 0; i < e.dtypes.size(); ++i) {
    if (std::find(known.begin(), known.end(), e.dtypes[i]) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw_at(dtypes[i], source, m.field("dtypes"),
               "unknown dtype '" + e.dtypes[i] + "' (expected one of " + list + ")");
    }
    if (std::count(e.dtypes.begin(), e.dtypes.end(), e.dtypes[i]) > 1)
      throw_at(dtypes[i], source, m.field("dtypes"), "dtype '" + e.dtypes[i] + "' listed twice");
  }
  e.constraints = read_constraints(m.get("constraints"), source, m.field("constraints"));
  e.replacement = m.opt_string("replacement").value_or("");
  e.notes = m.opt_string("notes").value_or("");
  m.finish();
  return e;
}

}  // namespace

OpMatrix parse_op_matrix(const std::string& text, const std::string& source) {
  YamlMap top(load_yaml_text(text, source), source, "");
  OpMatrix mx;
  mx.source = source;
  long long version = yaml_int(top.required("version"), source, "version", 1, 1000);
  if (version != 1)
    throw_at(top.get("version"), source, "version", "unsupported version (expected 1)");
  mx.backend = top.req_string("backend");
  mx.example = top.opt_bool("example").value_or(false);
  mx.description = top.opt_string("description").value_or("");
  mx.default_replacement = top.req_string("default_replacement");
  YAML::Node ops = top.required("ops");
  top.finish();
  if (!ops.IsMap()) throw_at(ops, source, "ops", "expected a map of op name: entry");
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    std::string name = yaml_string(it->first, source, "ops");
    if (mx.find(name)) throw_at(it->first, source, "ops." + name, "op listed twice");
    mx.entries.push_back(read_entry(name, it->second, source));
    mx.entries.back().line = yaml_position(it->first).first;  // the op's own line
  }
  return mx;
}

OpMatrix load_op_matrix_file(const std::string& path) {
  return parse_op_matrix(read_text_file(path), path);
}

}  // namespace hn::compat
