#pragma once
// The `hnprecheck gate` comparison as one self-contained HTML page (inline
// CSS and SVG, no script): what was compared, a chart with one row per
// judged figure (its baseline band, the baseline runs and the new value, as
// the change from the baseline centre with "better" always to the right),
// the table of those figures, and every finding. Plain data in: this leaf
// module knows nothing of the gate's types.

#include <string>
#include <vector>

#include "reports/finding.h"

namespace hn::reports {

struct GatePage {
  std::string title;               // "1 run vs baseline base.json"
  std::vector<std::string> setup;  // lines under the title
  struct Row {
    std::string identity;
    std::string unit;
    bool higher_is_better = true;
    double centre = 0, spread = 0, band_low = 0, band_high = 0;
    int n = 0;                            // baseline values
    std::vector<double> baseline_values;  // drawn as ticks
    double value = 0;                     // the new value (median of the new runs)
    std::string outcome;                  // "regressed", "within" or "improved"
  };
  std::vector<Row> rows;
};

// All text is HTML-escaped. A row whose centre is 0 has no relative scale: it
// is left out of the chart (the page says so) and kept in the table.
std::string render_gate_html(const Report& report, const GatePage& page);

}  // namespace hn::reports
