#pragma once
// The baseline file: a versioned JSON document (docs/baseline-schema.md).
// Additive changes keep kBaselineSchemaVersion; removing, renaming or
// changing the meaning of a field bumps it, and the reader refuses a newer
// version than it knows, naming both.

#include <string>

#include "gate/baseline.h"

namespace hn::gate {

inline constexpr const char* kBaselineSchemaName = "hnprecheck.baseline";
inline constexpr int kBaselineSchemaVersion = 1;

// Pretty-printed (2-space) with a trailing newline. Each metric also carries
// its derived centre, spread, n, min and max (null when it has no value), for
// people and dashboards; they are not read back.
std::string baseline_to_json(const Baseline& b);

// Reads a document written by baseline_to_json. Throws compat::InputError
// (file = source_name, field = the exact path, "metrics[3].values[2]") on
// malformed JSON, a wrong schema or newer version, a missing or mistyped
// field, values and runs of different lengths, a run index out of range, or
// a snapshot that does not validate. Unknown fields are ignored.
Baseline baseline_from_json(const std::string& text, const std::string& source_name);

}  // namespace hn::gate
