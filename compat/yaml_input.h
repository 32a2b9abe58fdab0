#pragma once
// Strict reading of YAML documents that users write (profiles, snapshots,
// operator matrices). Every accessor knows the dotted field path and the
// node's line, and every failure is an InputError naming both. A YamlMap
// remembers which keys were asked for; finish() rejects any other key by name,
// listing the ones allowed, so a typo never silently falls back to a default.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compat/input_error.h"

namespace hn::compat {

// Every document of a YAML stream (Kubernetes manifests hold several).
// Throws InputError with the parser's line on malformed YAML, and on a key
// given twice in one map (yaml-cpp would keep the first and ignore the other)
// naming both lines. document_lines, when given, receives each document's
// first line.
std::vector<YAML::Node> load_yaml_documents(const std::string& text, const std::string& source_name,
                                            std::vector<int>* document_lines = nullptr);
// Parses a single-document file (profiles, snapshots, matrices, op lists):
// as load_yaml_documents, and a second non-empty document is an InputError
// (a trailing empty one, "---" at the end, is fine). Empty text is a null node.
YAML::Node load_yaml_text(const std::string& text, const std::string& source_name);
// Reads (compat::read_text_file: regular files only, size-capped) and parses
// a file. Throws InputError when it is missing, unreadable or malformed.
YAML::Node load_yaml_file(const std::string& path);

// Location of a node: (line, column), 1-based; (0, 0) when unknown.
std::pair<int, int> yaml_position(const YAML::Node& node);

[[noreturn]] void throw_at(const YAML::Node& node, const std::string& source,
                           const std::string& field, const std::string& what);

// Scalar conversions with field-named errors. Integers are decimal only
// (010 is ten, 0x10 an error); numbers are decimal or exponent notation.
std::string yaml_string(const YAML::Node& n, const std::string& source, const std::string& field);
long long yaml_int(const YAML::Node& n, const std::string& source, const std::string& field,
                   long long min, long long max);
double yaml_number(const YAML::Node& n, const std::string& source, const std::string& field);
bool yaml_bool(const YAML::Node& n, const std::string& source, const std::string& field);
// "base[i]": the field name of a list element.
std::string yaml_index(const std::string& base, size_t i);
// Absent and null are an empty list; anything else but a list is an error.
void require_yaml_sequence(const YAML::Node& n, const std::string& source,
                           const std::string& field);
// A scalar or a list of scalars, always returned as a list.
std::vector<std::string> yaml_string_list(const YAML::Node& n, const std::string& source,
                                          const std::string& field);

class YamlMap {
 public:
  // Throws InputError unless node is a map (a null node counts as empty).
  YamlMap(YAML::Node node, std::string source, std::string path);

  bool has(std::string_view key);
  // The child, or an undefined node when absent; marks the key as known.
  YAML::Node get(std::string_view key);
  // Throws InputError "missing required field" when absent.
  YAML::Node required(std::string_view key);

  std::optional<std::string> opt_string(std::string_view key);
  std::string req_string(std::string_view key);
  std::optional<long long> opt_int(std::string_view key, long long min, long long max);
  std::optional<double> opt_number(std::string_view key);
  std::optional<bool> opt_bool(std::string_view key);
  std::vector<std::string> string_list(std::string_view key);  // empty when absent

  // Throws InputError on the first key never asked for.
  void finish() const;

  std::string field(std::string_view key) const;  // "path.key"
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }

 private:
  YAML::Node node_;
  std::string source_;
  std::string path_;
  std::vector<std::string> known_;
};

}  // namespace hn::compat
