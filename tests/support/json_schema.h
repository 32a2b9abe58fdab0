#pragma once
// Validates a JSON document against a JSON Schema (draft 2020-12) file with
// Debian's python3-jsonschema, the real validator rather than a partial one
// of our own: every certificate the tests produce goes through it.
//
// Returns one line per violation ("path: message"), empty when the document
// is valid. Calls skip() (exit 77, with the reason) when python3 or its
// jsonschema module is missing: scripts/install-deps.sh --test installs
// both, so CI always validates. Throws std::runtime_error when the
// validator itself fails (a broken schema file).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hn::test {

std::vector<std::string> json_schema_errors(const std::string& schema_file,
                                            const nlohmann::json& doc);

// The certificate schema, docs/certificate.schema.json.
std::string certificate_schema();

}  // namespace hn::test
