#pragma once
// Storage across hosts and under collective load (certify's storage phase):
// each host's jitter run carries its latency histograms (JitterSpec::
// with_histograms), so the hosts' samples merge exactly into aggregate
// percentiles, alone and under load; then the aggregate p99 under load is
// compared with alone, and the plane's busbw under storage load with
// alone, against storage.interference's limits.
//
// Pure: findings and figures in, findings and figures out.
//   STOR-AGGREGATE         per mount and workload, alone: every host at once
//   STOR-UNDER-LOAD        per mount and workload: p99 under load / alone
//   COMM-BUSBW-UNDER-LOAD  busbw under storage load / alone
// Figures: storage.p50/p90/p99/p999 (ms, labels mount, workload,
// condition alone|under_load, host: a host name or "all"),
// collective.busbw (condition under_storage_load).

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "formats/profile.h"
#include "reports/finding.h"
#include "reports/measurement.h"
#include "stack/l7_physical/latency_histogram.h"

namespace hn::probes::cluster {

struct StorageRuns {
  // (path, workload) -> condition -> host -> histogram
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::map<std::string, stack::physical::LatencyHistogram>>>
      hist;
};

struct StorageResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

// Moves a STOR-JITTER-LATENCY finding's "histogram" evidence into `runs`
// (keyed by its host, path and workload) and returns true; false for any
// other finding. Throws std::invalid_argument for a malformed histogram.
bool take_histogram(reports::Finding& f, const std::string& condition, StorageRuns& runs);

StorageResult aggregate_storage(const StorageRuns& runs, const std::string& phase);
StorageResult compare_under_load(const StorageRuns& runs, const std::string& plane,
                                 const formats::InterferenceLimits& warn,
                                 const formats::InterferenceLimits& fail, const std::string& phase);
StorageResult compare_busbw(const std::string& plane, const std::string& op, std::size_t bytes,
                            double alone, double under, const formats::InterferenceLimits& warn,
                            const formats::InterferenceLimits& fail, const std::string& phase);

}  // namespace hn::probes::cluster
