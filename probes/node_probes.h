#pragma once
// The probe list `hnprecheck node` runs: every node-local check the profile
// asks for, each wrapped as a Probe with its deadline and isolation. Probes
// share the context by shared_ptr (see node_context.h).

#include <memory>
#include <vector>

#include "probes/node_context.h"
#include "probes/probe.h"

namespace hn::probes {

std::vector<Probe> node_probes(std::shared_ptr<const NodeContext> ctx);

}  // namespace hn::probes
