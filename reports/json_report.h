#pragma once
// The machine-readable report: a versioned JSON document, described field by
// field in docs/report-schema.md and docs/report.schema.json. It is also the
// input of `gate` and `diff`, so the reader here is strict about what it needs
// and names the field it rejects.
//
// Versioning: adding a field keeps kReportSchemaVersion, so readers ignore
// keys they do not know; removing or renaming one bumps it, and a reader
// refuses a version newer than its own.

#include <nlohmann/json.hpp>
#include <string>

#include "reports/finding.h"

namespace hn::reports {

inline constexpr const char* kReportSchemaName = "hnprecheck.report";
inline constexpr int kReportSchemaVersion = 1;

// Pretty-printed (2-space) document with a trailing newline. Findings keep the
// order of report.findings. Strings that are not valid UTF-8 get U+FFFD for
// the bad bytes. Throws std::invalid_argument naming the entry when an
// extra_json value is not valid JSON (a bug in the command that set it).
std::string render_json(const Report& report);

// Parses a document written by render_json (any schema_version up to ours).
// Throws std::runtime_error "<source_name>: <field>: <problem>" on malformed
// JSON, a wrong schema, a missing or mistyped field, or an unknown status,
// layer or time. Derived fields (summary, duration_ms, layer_title) are not
// read back. Findings round-trip exactly; a non-finite metric value is
// written as null and reads back as NaN.
Report report_from_json(const std::string& text, const std::string& source_name);

// One finding as a JSON object, the same object render_json writes under
// "findings". All strings are valid UTF-8, so dump() never throws; this is what
// the runner sends from a probe's child process over a pipe.
nlohmann::json finding_to_json(const Finding& finding);

// The inverse of finding_to_json. Throws std::runtime_error naming the field
// ("finding.status: ...").
Finding finding_from_json(const nlohmann::json& j);

}  // namespace hn::reports
