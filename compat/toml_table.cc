#include "compat/toml_table.h"

#include "compat/input_error.h"

namespace hn::compat {

int toml_line(const toml::value& v) {
  return static_cast<int>(v.location().line());
}

TomlTable::TomlTable(const toml::value& v, std::string file, std::string path)
    : v_(v), file_(std::move(file)), path_(std::move(path)) {
  if (!v.is_table()) fail(v, path_, "expected a table");
}

void TomlTable::fail(const toml::value& at, const std::string& field,
                     const std::string& what) const {
  throw InputError(file_, toml_line(at), 0, field, what);
}

std::string TomlTable::field(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

const toml::value* TomlTable::get(const std::string& key) {
  known_.insert(key);
  const auto& t = v_.as_table();
  auto it = t.find(key);
  return it == t.end() ? nullptr : &it->second;
}

std::string TomlTable::str(const std::string& key, const std::string& fallback) {
  const toml::value* x = get(key);
  if (!x) return fallback;
  if (!x->is_string()) fail(*x, field(key), "expected a string");
  return x->as_string().str;
}

std::string TomlTable::required_str(const std::string& key) {
  if (!get(key)) fail(v_, field(key), "missing required key");
  return str(key);
}

std::optional<long long> TomlTable::integer(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return std::nullopt;
  if (!x->is_integer()) fail(*x, field(key), "expected an integer");
  return x->as_integer();
}

std::optional<double> TomlTable::number(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return std::nullopt;
  if (x->is_integer()) return static_cast<double>(x->as_integer());
  if (!x->is_floating()) fail(*x, field(key), "expected a number");
  return x->as_floating();
}

std::optional<bool> TomlTable::boolean(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return std::nullopt;
  if (!x->is_boolean()) fail(*x, field(key), "expected true or false");
  return x->as_boolean();
}

std::vector<std::string> TomlTable::strings(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return {};
  if (x->is_string()) return {x->as_string().str};
  if (!x->is_array()) fail(*x, field(key), "expected a string or a list of strings");
  std::vector<std::string> out;
  for (const auto& e : x->as_array()) {
    if (!e.is_string()) fail(e, field(key), "expected a list of strings");
    out.push_back(e.as_string().str);
  }
  return out;
}

std::vector<long long> TomlTable::integers(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return {};
  if (!x->is_array()) fail(*x, field(key), "expected a list of integers");
  std::vector<long long> out;
  for (const auto& e : x->as_array()) {
    if (!e.is_integer()) fail(e, field(key), "expected a list of integers");
    out.push_back(e.as_integer());
  }
  return out;
}

std::map<std::string, std::string> TomlTable::string_map(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return {};
  if (!x->is_table()) fail(*x, field(key), "expected a table of values");
  std::map<std::string, std::string> out;
  for (const auto& [k, e] : x->as_table()) {
    if (e.is_string())
      out[k] = e.as_string().str;
    else if (e.is_integer())
      out[k] = std::to_string(e.as_integer());
    else
      fail(e, field(key) + "." + k, "expected a string or an integer");
  }
  return out;
}

std::vector<TomlTable> TomlTable::tables(const std::string& key) {
  const toml::value* x = get(key);
  std::vector<TomlTable> out;
  if (!x) return out;
  if (!x->is_array()) fail(*x, field(key), "expected an array of tables ([[" + key + "]])");
  const auto& arr = x->as_array();
  for (size_t i = 0; i < arr.size(); ++i)
    out.emplace_back(arr[i], file_, field(key) + "[" + std::to_string(i) + "]");
  return out;
}

std::optional<TomlTable> TomlTable::table(const std::string& key) {
  const toml::value* x = get(key);
  if (!x) return std::nullopt;
  if (!x->is_table()) fail(*x, field(key), "expected a table ([" + field(key) + "])");
  return TomlTable(*x, file_, field(key));
}

void TomlTable::finish() const {
  const toml::value* worst = nullptr;
  std::string worst_key;
  for (const auto& [k, e] : v_.as_table())
    if (!known_.count(k) && (!worst || toml_line(e) < toml_line(*worst))) {
      worst = &e;
      worst_key = k;
    }
  if (!worst) return;
  std::string allowed;
  for (const auto& k : known_) allowed += (allowed.empty() ? "" : ", ") + k;
  fail(*worst, field(worst_key), "unknown key '" + worst_key + "' (allowed: " + allowed + ")");
}

}  // namespace hn::compat
