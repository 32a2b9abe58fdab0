#pragma once
// Parses one rule table from TOML text: a library table (it has a `library`
// key) or a map table (`from`/`to`). Throws compat::InputError with the file,
// line and dotted key for malformed TOML, unknown keys, wrong types, unknown
// types/conversions/kinds, or rows that lack a reason or a next step.

#include <optional>
#include <string>

#include "compat/translate/rules.h"

namespace hn::compat::translate {

struct ParsedTable {
  std::optional<Library> library;
  std::optional<MapTable> map;
};

ParsedTable parse_rule_table(const std::string& text, const std::string& file);

}  // namespace hn::compat::translate
