#pragma once
// The one entry point for JSON from a user file (torch.profiler traces, and
// any JSON input added later). It runs the pre-parse guard (input_guard.h:
// size, nesting) and then nlohmann/json, and turns every parser failure into
// an InputError (exit 2) with file:line:column: a syntax error, and a number
// that overflows a double (`1e400`, nlohmann's out_of_range.406), which would
// otherwise escape as "could not run" (exit 3) without the file's name.
// Throws only InputError.

#include <nlohmann/json.hpp>

#include <string>

#include "compat/text_file.h"

namespace hn::compat {

// malformed: how a syntax error begins ("malformed JSON: syntax error ...").
nlohmann::json parse_json_text(const std::string& text, const std::string& source,
                               std::size_t max_bytes = kMaxInputBytes,
                               const std::string& malformed = "malformed JSON");

// The same, keeping the members of each object in the file's order (a reader
// whose output lists them in that order: gate's baseline).
nlohmann::ordered_json parse_ordered_json_text(const std::string& text, const std::string& source,
                                               std::size_t max_bytes = kMaxInputBytes,
                                               const std::string& malformed = "malformed JSON");

// The same for a SAX consumer (a reader that keeps only what it needs, so
// memory follows what it keeps rather than the size of the file). sax's
// parse_error() must return false; the error is then thrown as above.
void sax_parse_json_text(const std::string& text, const std::string& source,
                         nlohmann::json_sax<nlohmann::json>& sax,
                         std::size_t max_bytes = kMaxInputBytes,
                         const std::string& malformed = "malformed JSON");

}  // namespace hn::compat
