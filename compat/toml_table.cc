#include "compat/toml_table.h"

#include <sstream>

namespace hn::compat {

toml::value parse_toml_text(const std::string& text, const std::string& file) {
  try {
    std::istringstream is(text);
    return toml::parse(is, file);
  } catch (const toml::syntax_error& e) {
    throw InputError(file, static_cast<int>(e.location().line()), 0, "",
                     "malformed TOML: " + std::string(e.what()));
  } catch (const std::exception& e) {
    throw InputError(file, 0, 0, "", std::string("malformed TOML: ") + e.what());
  }
}

}  // namespace hn::compat
