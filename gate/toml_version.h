#pragma once
// Every TOML file of the gate (the rules file, the figures and drift tables)
// starts with `version = 1`; a missing or other version is an InputError.

#include <string>

#include "compat/toml_table.h"

namespace hn::gate {

inline void require_version_1(compat::TomlTable& t) {
  const auto v = t.integer("version");
  if (!v) t.fail(t.value(), t.field("version"), "missing required key (version = 1)");
  if (*v != 1) t.fail(*t.get("version"), t.field("version"), "must be 1");
}

}  // namespace hn::gate
