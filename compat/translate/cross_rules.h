#pragma once
// Evaluates a target library's cross-variable rules ([[cross]] rows) on the
// final environment: orderings (HCCL_EVENT_TIMEOUT > HCCL_EXEC_TIMEOUT, the
// process-group timeout > HCCL_CONNECT_TIMEOUT + 20 s), equality with the
// profile (HCCL_RDMA_SL == comm.pfc_priority), port ranges against
// ip_local_port_range, and requires/exclusive/product limits.
//
// Unset variables take their documented default. A rule none of whose
// variables is set is skipped unless it says `always = true`. A rule with
// `fix = true` writes the profile's value into `env` when the variable was
// unset (never over a value the user set). Internal to the translator.

#include <map>
#include <string>
#include <vector>

#include "compat/translate/translator.h"

namespace hn::compat::translate {

std::vector<CrossResult> evaluate_cross(const RuleSet& rules,
                                        std::map<std::string, std::string>& env,
                                        const Context& ctx);

}  // namespace hn::compat::translate
