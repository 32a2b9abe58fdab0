#pragma once
// What the gate's TOML tables (the rules file, the figures and drift tables)
// share: every one starts with `version = 1` (a missing or other version is an
// InputError), and their name patterns are shell globs.

#include <fnmatch.h>

#include <string>

#include "compat/toml_table.h"

namespace hn::gate {

// Shell-style match of a figure or finding name against a table's pattern.
inline bool glob(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

inline void require_version_1(compat::TomlTable& t) {
  const auto v = t.integer("version");
  if (!v) t.fail(t.value(), t.field("version"), "missing required key (version = 1)");
  if (*v != 1) t.fail(*t.get("version"), t.field("version"), "must be 1");
}

}  // namespace hn::gate
