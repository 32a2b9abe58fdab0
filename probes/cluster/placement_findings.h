#pragma once
// Placement (L5) findings of certify: each tensor-parallel group within one
// high-speed domain of the profile's topology (SCHED-TP-DOMAIN), and the
// same number of ranks on every host (SCHED-RANKS-PER-HOST, a WARN).
// Pure: the rank-to-host mapping (profile node names where known, else host
// names), the groups and the profile in, findings out.

#include <string>
#include <vector>

#include "formats/profile.h"
#include "reports/finding.h"

namespace hn::probes::cluster {

// tp_groups empty: the TP check is SKIP with `no_groups_reason`.
std::vector<reports::Finding> check_placement(const formats::Profile& profile,
                                              const std::vector<std::string>& host_of_rank,
                                              const std::vector<std::vector<int>>& tp_groups,
                                              const std::string& no_groups_reason);

}  // namespace hn::probes::cluster
