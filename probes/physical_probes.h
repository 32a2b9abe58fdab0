#pragma once
// L7 checks of a node against the profile: plane NICs (present, up, MTU,
// speed), RDMA devices and ports, accelerator count, temperatures, memory and
// CPUs. Each function reads only the source it needs and returns findings;
// none throws for a missing device (that is a finding), only for a source
// that cannot be read at all (the runner turns that into ERROR).

#include <vector>

#include "probes/node_context.h"
#include "reports/finding.h"

namespace hn::probes {

std::vector<reports::Finding> check_plane_nics(const NodeContext& ctx);
std::vector<reports::Finding> check_rdma(const NodeContext& ctx);
std::vector<reports::Finding> check_accelerators(const NodeContext& ctx);
std::vector<reports::Finding> check_thermal(const NodeContext& ctx);
std::vector<reports::Finding> check_memory_cpu(const NodeContext& ctx);

}  // namespace hn::probes
