#pragma once
// The latency-percentile charts of the HTML report: latency at p50, p90, p99
// and p99.9 (the "nines" evenly spaced, milliseconds on a log axis).
//
// A series is an entity whose finding carries the four metrics p50, p90, p99
// and p999 in ms (the storage jitter workloads: STOR-JITTER-LATENCY and the
// limit findings of one workload all share its entity and its curve, and it
// is drawn once). It is named by the finding's evidence "workload" (else its
// entity) and charted by its evidence "path" (one chart per mount), each in
// its own colour with a legend entry that also shows its worst status. The
// limits come from the findings whose code ends in -P50, -P90, -P99 or -P999
// and whose evidence has warn_ms and/or fail_ms: the range above each warn
// limit and above each fail limit is drawn as a band at that percentile.
// Series whose limits differ get separate charts, so a band is always the
// limit of every line drawn over it.

#include <ostream>
#include <vector>

#include "reports/finding.h"

namespace hn::reports {

// Writes an <h2> and one chart per path (nothing when no finding has the
// four percentiles), following the markup contract of reports/svg_chart.h.
void latency_charts(std::ostream& os, const std::vector<Finding>& findings);

}  // namespace hn::reports
