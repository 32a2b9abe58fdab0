#include "probes/node_context.h"

#include "compat/input_error.h"

namespace hn::probes {

const NodeSpec* identify_node(const Profile& profile, const std::string& hostname,
                              const std::string& requested) {
  if (!requested.empty()) {
    if (const NodeSpec* n = profile.find_node(requested)) return n;
    std::string names;
    for (const auto& n : profile.nodes) names += (names.empty() ? "" : ", ") + n.name;
    throw compat::InputError(profile.source, 0, 0, "nodes",
                             "--node " + requested + " is not declared (declared: " +
                                 (names.empty() ? "none" : names) + ")");
  }
  if (const NodeSpec* n = profile.find_node(hostname)) return n;
  std::string short_name = hostname.substr(0, hostname.find('.'));
  return profile.find_node(short_name);
}

}  // namespace hn::probes
