#pragma once
// What ranks send each other through the control store (phase arguments,
// results, host reports) is JSON read through the guarded entry point like
// any input: a peer that proved the job token can still be a broken build.
// A malformed or oversized message is the tool's fault, not the user's input:
// it throws std::runtime_error naming `what` (exit 3), never InputError
// (exit 2, which would send the user looking for a bad file).

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "compat/input_error.h"
#include "compat/json_input.h"

namespace hn::preflight::certify {

inline nlohmann::json parse_message(const std::string& text,
                                    const std::string& what = "certify message") {
  try {
    return compat::parse_json_text(text, what);
  } catch (const compat::InputError& e) {
    throw std::runtime_error(std::string("malformed message between ranks: ") + e.what());
  }
}

}  // namespace hn::preflight::certify
