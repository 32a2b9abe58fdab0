#include "compat/yaml_input.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hn::compat {

YAML::Node load_yaml_text(const std::string& text, const std::string& source_name) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(source_name, e.mark.line + 1, e.mark.column + 1, "",
                     "malformed YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw InputError(source_name, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, 0, "", "read failed");
  return load_yaml_text(ss.str(), path);
}

std::pair<int, int> yaml_position(const YAML::Node& node) {
  if (!node.IsDefined()) return {0, 0};
  YAML::Mark m = node.Mark();
  if (m.is_null()) return {0, 0};
  return {m.line + 1, m.column + 1};
}

void throw_at(const YAML::Node& node, const std::string& source, const std::string& field,
              const std::string& what) {
  auto [line, col] = yaml_position(node);
  throw InputError(source, line, col, field, what);
}

namespace {
std::string describe(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  if (n.IsNull()) return "nothing";
  return "an undefined value";
}
}  // namespace

std::string yaml_string(const YAML::Node& n, const std::string& source, const std::string& field) {
  if (!n.IsScalar()) throw_at(n, source, field, "expected a string, got " + describe(n));
  return n.Scalar();
}

long long yaml_int(const YAML::Node& n, const std::string& source, const std::string& field,
                   long long min, long long max) {
  if (!n.IsScalar()) throw_at(n, source, field, "expected an integer, got " + describe(n));
  const std::string& s = n.Scalar();
  long long v = 0;
  size_t used = 0;
  try {
    v = std::stoll(s, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size())
    throw_at(n, source, field, "expected an integer, got '" + s + "'");
  if (v < min || v > max)
    throw_at(n, source, field,
             "value " + s + " is out of range [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]");
  return v;
}

double yaml_number(const YAML::Node& n, const std::string& source, const std::string& field) {
  if (!n.IsScalar()) throw_at(n, source, field, "expected a number, got " + describe(n));
  const std::string& s = n.Scalar();
  double v = 0;
  size_t used = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v))
    throw_at(n, source, field, "expected a number, got '" + s + "'");
  return v;
}

bool yaml_bool(const YAML::Node& n, const std::string& source, const std::string& field) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  throw_at(n, source, field, "expected true or false, got " + describe(n));
}

std::vector<std::string> yaml_string_list(const YAML::Node& n, const std::string& source,
                                          const std::string& field) {
  std::vector<std::string> out;
  if (!n.IsDefined() || n.IsNull()) return out;
  if (n.IsScalar()) return {n.Scalar()};
  if (!n.IsSequence())
    throw_at(n, source, field, "expected a string or a list of strings, got " + describe(n));
  for (size_t i = 0; i < n.size(); ++i)
    out.push_back(yaml_string(n[i], source, field + "[" + std::to_string(i) + "]"));
  return out;
}

YamlMap::YamlMap(YAML::Node node, std::string source, std::string path)
    : node_(std::move(node)), source_(std::move(source)), path_(std::move(path)) {
  if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap())
    throw_at(node_, source_, path_.empty() ? "(document)" : path_,
             "expected a map of key: value, got " + describe(node_));
}

std::string YamlMap::field(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool YamlMap::has(std::string_view key) {
  known_.emplace_back(key);
  if (!node_.IsMap()) return false;
  return static_cast<bool>(node_[std::string(key)]);
}

YAML::Node YamlMap::get(std::string_view key) {
  known_.emplace_back(key);
  if (!node_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node& cn = node_;
  YAML::Node child = cn[std::string(key)];
  // An absent key yields yaml-cpp's "invalid" node, which throws on most uses;
  // hand back a valid Undefined node instead.
  if (!child) return YAML::Node(YAML::NodeType::Undefined);
  return child;
}

YAML::Node YamlMap::required(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) throw_at(node_, source_, field(key), "missing required field");
  return n;
}

std::optional<std::string> YamlMap::opt_string(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_string(n, source_, field(key));
}

std::string YamlMap::req_string(std::string_view key) {
  return yaml_string(required(key), source_, field(key));
}

std::optional<long long> YamlMap::opt_int(std::string_view key, long long min, long long max) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_int(n, source_, field(key), min, max);
}

std::optional<double> YamlMap::opt_number(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_number(n, source_, field(key));
}

std::optional<bool> YamlMap::opt_bool(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_bool(n, source_, field(key));
}

std::vector<std::string> YamlMap::string_list(std::string_view key) {
  return yaml_string_list(get(key), source_, field(key));
}

void YamlMap::finish() const {
  if (!node_.IsMap()) return;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.Scalar();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string allowed;
    std::vector<std::string> sorted = known_;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const auto& k : sorted) allowed += (allowed.empty() ? "" : ", ") + k;
    throw_at(it->first, source_, field(key), "unknown key '" + key + "' (allowed: " + allowed + ")");
  }
}

}  // namespace hn::compat
