#pragma once
// A job's environment written as a file (`hnprecheck node --env FILE`): the
// shell subset people put in env files and sbatch preambles.
//
//   # comment              blank lines and comment lines are skipped
//   KEY=value              unquoted: ends at whitespace; " # ..." after it is a comment
//   export KEY=value       `export ` is allowed and ignored
//   KEY="a b \" \\ \$"     double quotes: \" \\ \$ \` are escapes, no expansion
//   KEY='literal'          single quotes: taken literally
//   KEY=                   empty value
//
// Anything else is malformed and throws InputError naming file:line and the
// key: a missing '=', a bad key, an unterminated quote, text after the value,
// and `$` expansion ($VAR, ${VAR}, $(cmd)) outside single quotes, because the
// value a shell would produce cannot be known here. A later assignment of the
// same key replaces the earlier one, as in a shell.

#include <optional>
#include <string>
#include <vector>

namespace hn::compat {

struct EnvEntry {
  std::string key;
  std::string value;
  int line = 0;
};

struct EnvFile {
  std::string source;             // file path (or a name for text)
  std::vector<EnvEntry> entries;  // in file order, last assignment of each key only
  const EnvEntry* find(const std::string& key) const;
};

EnvFile parse_env_text(const std::string& text, const std::string& source_name);
// Throws InputError when the file cannot be read.
EnvFile load_env_file(const std::string& path);

}  // namespace hn::compat
