#include "probes/node_identity_probes.h"

#include "reports/catalog.h"

namespace hn::probes {

std::vector<reports::Finding> check_node_identity(const NodeContext& ctx) {
  const Profile& profile = *ctx.profile;
  if (profile.nodes.empty()) return {};
  const std::string host = ctx.sources.hostname.empty() ? "(no hostname)" : ctx.sources.hostname;
  if (ctx.node)
    return {reports::make_finding("PROFILE-NODE", reports::Status::kPass, ctx.node->name,
                                  {{"node", ctx.node->name}, {"hostname", host}})};
  return {reports::make_finding("PROFILE-NODE", reports::Status::kWarn, host,
                                {{"hostname", host},
                                 {"count", std::to_string(profile.nodes.size())},
                                 {"declared", declared_node_names(profile)},
                                 {"profile", profile.source}})};
}

}  // namespace hn::probes
