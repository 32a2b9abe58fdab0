#pragma once
// Strict reading of TOML inputs (rule tables, job manifests): every key is
// asked for by name, every type is checked, and every error is an InputError
// with the file, the line of the offending value and the dotted key. Keys
// nobody asked for are rejected by finish(), naming the first one in file
// order and the allowed keys.
//
// The accessors throw InputError(file, line, dotted key) for a wrong type,
// and TomlTable's constructor for a value that is not a table. Parsing the
// text is the guarded entry point's job (compat/toml_input.h).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <toml.hpp>
#include <vector>

namespace hn::compat {

// The 1-based line where a value was written (0 when toml11 does not know).
int toml_line(const toml::value& v);

class TomlTable {
 public:
  TomlTable(const toml::value& v, std::string file, std::string path);

  [[noreturn]] void fail(const toml::value& at, const std::string& field,
                         const std::string& what) const;
  // "parent.key", or "key" at the top level.
  std::string field(const std::string& key) const;

  // nullptr when absent; every key asked for counts as known for finish().
  const toml::value* get(const std::string& key);
  std::string str(const std::string& key, const std::string& fallback = "");
  std::string required_str(const std::string& key);
  std::optional<long long> integer(const std::string& key);
  std::optional<double> number(const std::string& key);
  std::optional<bool> boolean(const std::string& key);
  // A string or a list of strings.
  std::vector<std::string> strings(const std::string& key);
  std::vector<long long> integers(const std::string& key);
  // An inline table of scalars, as text: { WARN = "2", 0 = 1 }.
  std::map<std::string, std::string> string_map(const std::string& key);
  // An array of tables ([[key]]), each with its dotted path "key[i]".
  std::vector<TomlTable> tables(const std::string& key);
  // A sub-table ([key]); nullopt when absent.
  std::optional<TomlTable> table(const std::string& key);
  // Rejects keys never asked for, naming the first one in file order.
  void finish() const;

  const toml::value& value() const { return v_; }
  int line() const { return toml_line(v_); }
  const std::string& file() const { return file_; }

 private:
  const toml::value& v_;
  std::string file_;
  std::string path_;
  std::set<std::string> known_;
};

}  // namespace hn::compat
