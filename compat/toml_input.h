#pragma once
// The one entry point for TOML from a user file (translate's rule tables).
// It runs the pre-parse guard (input_guard.h: size, nesting, dotted-key
// depth: toml11 3.7 recurses once per level and has no limit of its own, so
// 10,000 nested `[` overflowed the stack) and then toml11, and turns every
// parser failure into an InputError (exit 2) with file:line. Throws only
// InputError.

#include <toml.hpp>

#include <string>

#include "compat/text_file.h"

namespace hn::compat {

toml::value parse_toml_text(const std::string& text, const std::string& source,
                            std::size_t max_bytes = kMaxInputBytes);

}  // namespace hn::compat
