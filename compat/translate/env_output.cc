#include "compat/translate/env_output.h"

#include <cctype>

namespace hn::compat::translate {

std::string shell_quote(const std::string& v) {
  bool plain = !v.empty();
  for (char c : v)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("_.,:/=@%+^-").find(c) != std::string_view::npos))
      plain = false;
  if (plain) return v;
  std::string out = "'";
  for (char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string render_env_file(const Translation& t, const std::string& command) {
  std::string s = "# " + command + "\n";
  s += "# Only values valid for " + t.to +
       " are written; the report lists every input variable and what became of it.\n";
  for (const auto& line : t.env) {
    std::string origin;
    for (char c : line.origin) origin += c == '\n' ? std::string("\\n") : std::string(1, c);
    s += "# <- " + origin + "\n";
    s += line.name + "=" + shell_quote(line.value) + "\n";
  }
  return s;
}

}  // namespace hn::compat::translate
