// Catalog entries about the run itself: deadlines, crashed or failing probes.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kEntries[] = {
    {"RUN-PROBE-TIMEOUT", Layer::kL7, "probe finished within its deadline",
     "probe {probe} finished within {deadline_ms} ms",
     "probe {probe} did not finish within its deadline of {deadline_ms} ms and was {action}",
     "Something {probe} touches is blocking (a hung mount, a stuck kernel call or an "
     "unresponsive peer). Investigate that target before running jobs on this node."},
    {"RUN-PROBE-ERROR", Layer::kL7, "probe ran", "probe {probe} ran",
     "probe {probe} could not run: {reason}",
     "Fix the cause named in the message and re-run; run with --json for the evidence."},
};
}  // namespace

std::span<const CatalogEntry> run() { return kEntries; }

}  // namespace hn::reports::catalog_parts
