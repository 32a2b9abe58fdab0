#pragma once
// The judged figures of a comparison as the rows of the gate's HTML page
// (reports/gate_html.h).

#include <string>

#include "gate/baseline.h"
#include "gate/compare.h"
#include "reports/gate_html.h"

namespace hn::gate {

reports::GatePage gate_page(const Comparison& c, const Baseline& b,
                            const std::string& baseline_source, std::size_t new_runs,
                            const std::string& rules_source);

}  // namespace hn::gate
