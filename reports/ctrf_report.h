#pragma once
// CTRF (Common Test Report Format, specVersion 1.0.0): the JSON test report
// that dashboards and CTRF GitHub actions read. Only keys the spec allows
// appear at the top level; our own detail goes under each test's "extra".

#include <map>
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

// CTRF's optional top-level "baseline": the earlier result this run was
// compared with (`gate` names its baseline file). The spec requires
// reportId (a UUID) and allows timestamp (RFC 3339), source, buildNumber,
// buildName, buildUrl, commit and extra, nothing else.
struct CtrfBaseline {
  std::string report_id;
  std::string timestamp;  // omitted when empty
  std::string source;     // omitted when empty
  std::map<std::string, std::string> extra;
};
// The same report with a "baseline" object (none when baseline is null).
std::string render_ctrf(const Report& report, const CtrfBaseline* baseline);

// The CTRF status for one of ours: passed, failed, skipped or other.
std::string_view ctrf_status(Status status);

}  // namespace hn::reports
