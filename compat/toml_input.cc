#include "compat/toml_input.h"

#include <sstream>

#include "compat/input_error.h"
#include "compat/input_guard.h"

namespace hn::compat {

toml::value parse_toml_text(const std::string& text, const std::string& source,
                            std::size_t max_bytes) {
  guard_structured_text(text, source, Syntax::kToml, max_bytes);
  try {
    std::istringstream is(text);
    return toml::parse(is, source);
  } catch (const toml::syntax_error& e) {
    throw InputError(source, static_cast<int>(e.location().line()), 0, "",
                     "malformed TOML: " + std::string(e.what()));
  } catch (const std::exception& e) {
    throw InputError(source, 0, 0, "", std::string("malformed TOML: ") + e.what());
  }
}

}  // namespace hn::compat
