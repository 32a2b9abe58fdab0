#include "probes/node_probes.h"

#include "probes/comm_env_probes.h"
#include "probes/netplane_binding_probes.h"
#include "probes/netplane_route_probes.h"
#include "probes/netplane_sysctl_probes.h"
#include "probes/node_identity_probes.h"
#include "probes/physical_probes.h"
#include "probes/rdma_binding_probes.h"
#include "probes/storage/storage_probes.h"

namespace hn::probes {

namespace {
using Check = std::vector<reports::Finding> (*)(const NodeContext&);

Probe in_process(const char* name, reports::Layer layer, Check check,
                 std::shared_ptr<const NodeContext> ctx) {
  Probe p;
  p.name = name;
  p.layer = layer;
  p.isolation = Isolation::kInProcess;
  p.deadline = std::chrono::milliseconds(2000);
  p.run = [check, ctx] { return check(*ctx); };
  return p;
}

// Reads that go through a driver to firmware or a sensor bus (ibv_query_port,
// hwmon over I2C/IPMI, PCI device attributes) can sleep in the kernel without
// bound; an abandoned thread stuck there would keep the process from exiting.
// On a live node they run in a child the runner can SIGKILL. Replayed
// snapshots cannot block and stay in-process.
Probe may_block(const char* name, reports::Layer layer, Check check,
                std::shared_ptr<const NodeContext> ctx) {
  Probe p = in_process(name, layer, check, ctx);
  if (ctx->sources.live) p.isolation = Isolation::kChild;
  return p;
}
}  // namespace

std::vector<Probe> node_probes(std::shared_ptr<const NodeContext> ctx) {
  using reports::Layer;
  std::vector<Probe> out;
  out.push_back(in_process("profile.node", Layer::kL5, check_node_identity, ctx));
  out.push_back(in_process("physical.nics", Layer::kL7, check_plane_nics, ctx));
  out.push_back(may_block("physical.rdma", Layer::kL7, check_rdma, ctx));
  out.push_back(may_block("physical.accelerators", Layer::kL7, check_accelerators, ctx));
  out.push_back(may_block("physical.thermal", Layer::kL7, check_thermal, ctx));
  out.push_back(in_process("physical.memory", Layer::kL7, check_memory_cpu, ctx));
  // L6: netlink dumps and route lookups, procfs; each answers in milliseconds.
  out.push_back(in_process("netplane.binding", Layer::kL6, check_plane_binding, ctx));
  out.push_back(in_process("netplane.routes", Layer::kL6, check_plane_routes, ctx));
  out.push_back(in_process("netplane.sysctl", Layer::kL6, check_plane_sysctls, ctx));
  // It reads the RDMA ports when NCCL_IB_HCA (or an RDMA plane) is set.
  out.push_back(may_block("netplane.comm_env", Layer::kL6, check_comm_env, ctx));
  out.push_back(may_block("netplane.rdma", Layer::kL6, check_rdma_binding, ctx));
  for (auto& p : storage::storage_probes(ctx)) out.push_back(std::move(p));
  return out;
}

}  // namespace hn::probes
