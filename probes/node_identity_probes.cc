#include "probes/node_identity_probes.h"

#include "reports/catalog.h"

namespace hn::probes {

std::vector<reports::Finding> check_node_identity(const NodeContext& ctx) {
  const formats::Profile& profile = *ctx.profile;
  std::vector<reports::Finding> out;
  // A plane declared by NIC alone: the subnet checks have nothing to hold
  // its addresses and routes to. Said once per plane, not silently skipped.
  // `nic: auto` (the embedded default profile) is the default-route NIC on
  // purpose: whatever it carries is the plane.
  for (const auto& pl : profile.planes)
    if (pl.subnets.empty() && pl.nic != "auto")
      out.push_back(reports::make_finding("PROFILE-PLANE-SUBNET", reports::Status::kWarn,
                                          "plane " + pl.name,
                                          {{"plane", pl.name},
                                           {"nic", pl.nic},
                                           {"line", std::to_string(pl.line)},
                                           {"profile", profile.source}}));
  if (profile.nodes.empty()) return out;
  const std::string host = ctx.sources.hostname.empty() ? "(no hostname)" : ctx.sources.hostname;
  if (ctx.node) {
    out.push_back(reports::make_finding("PROFILE-NODE", reports::Status::kPass, ctx.node->name,
                                        {{"node", ctx.node->name}, {"hostname", host}}));
    return out;
  }
  out.push_back(reports::make_finding("PROFILE-NODE", reports::Status::kWarn, host,
                                      {{"hostname", host},
                                       {"count", std::to_string(profile.nodes.size())},
                                       {"declared", declared_node_names(profile)},
                                       {"profile", profile.source}}));
  return out;
}

}  // namespace hn::probes
