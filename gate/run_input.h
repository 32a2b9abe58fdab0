#pragma once
// Turns the text of one file into a Run (gate/run.h). The kind is recognised
// by content, never by file name:
//   JSON with "schema": "hnprecheck.certificate"  a certificate (docs/certificate-schema.md)
//   JSON with "schema": "hnprecheck.report"       a JSON report (docs/report-schema.md)
//   JSON with "tool": "hnprecheck", "command": "bench"   `bench --json` (docs/bench-schema.md)
//   YAML with version and hostname                a snapshot (formats/snapshot.h)
// A certificate states each figure's direction; bench rows and report
// metrics get theirs from the figures table (gate/figures.h), and a figure no
// row names is kept with no direction (Figure::stated = false), never dropped.
// Pure: the caller reads the file (compat::read_text_file).

#include <string>
#include <string_view>

#include "gate/figures.h"
#include "gate/run.h"

namespace hn::gate {

// Throws compat::InputError naming the source and the field on anything that
// is not one of the four kinds or does not follow its schema, on a baseline
// or a gate report given as a run, and on a certificate or report newer than
// this hnprecheck reads.
Run read_run(const std::string& text, const std::string& source, const FigureTable& figures);

// Lower-case hex SHA-256 of the bytes: identifies a run's file in a baseline.
std::string sha256_hex(std::string_view bytes);

}  // namespace hn::gate
