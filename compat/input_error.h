#pragma once
// The one error type for bad user input (profiles, snapshots, env files,
// manifests, model files). It carries where the problem is, so the CLI can
// print "file:line:col: field: what was expected" and exit 2. Everything that
// reads user input throws this, never a bare library exception.

#include <stdexcept>
#include <string>

namespace hn::compat {

class InputError : public std::runtime_error {
 public:
  // line and column are 1-based; 0 means unknown.
  InputError(std::string file, int line, int column, std::string field, std::string what)
      : std::runtime_error(format(file, line, column, field, what)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        field_(std::move(field)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& field() const { return field_; }

 private:
  static std::string format(const std::string& file, int line, int column, const std::string& field,
                            const std::string& what) {
    std::string s = file;
    if (line > 0) s += ":" + std::to_string(line);
    if (line > 0 && column > 0) s += ":" + std::to_string(column);
    s += ": ";
    if (!field.empty()) s += field + ": ";
    return s + what;
  }
  std::string file_;
  int line_;
  int column_;
  std::string field_;
};

}  // namespace hn::compat
