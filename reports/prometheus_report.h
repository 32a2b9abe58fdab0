#pragma once
// Prometheus text exposition (format 0.0.4) of a run, for node_exporter's
// textfile collector: write it with `--prometheus /var/lib/node_exporter/
// textfile/hnprecheck.prom` from the Prolog and alert on it. Written
// atomically like every report, so the collector never reads half a file.
//
// Series (all gauges; labels are escaped as the format requires):
//   hnprecheck_run_info{command,host,profile,version} 1
//   hnprecheck_last_run_timestamp_seconds{command}   finish time (unix s)
//   hnprecheck_run_duration_seconds{command}
//   hnprecheck_findings{command,status}              every status, also 0
//   hnprecheck_check_status{command,code,layer,entity}   0 pass, 1 warn,
//                                                    2 fail, 3 skip, 4 error
//   hnprecheck_finding_metric{command,code,entity,metric,unit}
// Label values are valid UTF-8 (bad bytes become U+FFFD).
// A series that would repeat a label set (two findings of one code on one
// entity) keeps the worst status, so the output is always valid to scrape.

#include <string>

#include "reports/finding.h"

namespace hn::reports {

std::string render_prometheus(const Report& report);

// The value hnprecheck_check_status uses for a status.
int prometheus_status_value(Status s);

}  // namespace hn::reports
