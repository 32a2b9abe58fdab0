#pragma once
// The comparison as JSON: what `gate --json` puts under the report's
// extra.gate (docs/gate-rules.md, "JSON output"): the baseline it used, the
// tally, and every figure, check, drift and host with its outcome and the
// numbers behind it, including the informational and ignored figures that
// have no finding.

#include <string>

#include "gate/baseline.h"
#include "gate/compare.h"
#include "gate/findings.h"
#include "gate/rules.h"

namespace hn::gate {

// Compact JSON text (the report writer re-indents it).
std::string comparison_json(const Comparison& c, const Baseline& b,
                            const std::string& baseline_source, const Rules& rules);

}  // namespace hn::gate
