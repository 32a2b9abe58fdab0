#pragma once
// CTRF (Common Test Report Format, specVersion 1.0.0): the JSON test report
// that dashboards and CTRF GitHub actions read. Only keys the spec allows
// appear at the top level; our own detail goes under each test's "extra".

#include <string>
#include <string_view>

#include "reports/finding.h"

namespace hn::reports {

// Status mapping: PASS passed, FAIL and ERROR failed, SKIP skipped, WARN other
// (rawStatus keeps ours). "timestamp" is the run's finish time, summary
// start/stop are unix milliseconds, durations whole milliseconds. reportId is
// a fresh random UUID (v4) per call. Tests are in sorted_for_report() order;
// each test's "suite" is ["L7 physical"] (an array in CTRF 1.0.0).
std::string render_ctrf(const Report& report);

// The CTRF status for one of ours: passed, failed, skipped or other.
std::string_view ctrf_status(Status status);

}  // namespace hn::reports
