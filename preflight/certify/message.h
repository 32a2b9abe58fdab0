#pragma once
// What ranks send each other through the control store (phase arguments,
// results, host reports) is JSON read through the guarded entry point like
// any input: a peer that proved the job token can still be a broken build.
// Throws compat::InputError (naming `what`) for malformed or oversized text.

#include <nlohmann/json.hpp>
#include <string>

#include "compat/json_input.h"

namespace hn::preflight::certify {

inline nlohmann::json parse_message(const std::string& text,
                                    const std::string& what = "certify message") {
  return compat::parse_json_text(text, what);
}

}  // namespace hn::preflight::certify
