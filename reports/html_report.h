#pragma once
// A self-contained HTML report (inline CSS and SVG, no script, nothing
// fetched): a page to attach to a ticket or publish as a CI artifact. It
// shows the run's summary, a bar per layer with its findings by status, a
// latency-percentile chart for every finding that carries p50/p90/p99/p999
// metrics in ms (the storage jitter workloads: a CDF read at four points, on
// a log axis), and one table per layer, problems first, with each finding's
// evidence and metrics folded under it. All text is HTML-escaped.

#include <string>

#include "reports/finding.h"

namespace hn::reports {

std::string render_html(const Report& report);

}  // namespace hn::reports
