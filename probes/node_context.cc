#include "probes/node_context.h"

#include "compat/input_error.h"

namespace hn::probes {

std::string node_name_list(const std::vector<std::string>& names, size_t max) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > max) s += ", ... (" + std::to_string(names.size() - max) + " more)";
  return s.empty() ? "none" : s;
}

std::string declared_node_names(const formats::Profile& profile, size_t max) {
  std::vector<std::string> names;
  for (const auto& n : profile.nodes) names.push_back(n.name);
  return node_name_list(names, max);
}

const formats::NodeSpec* identify_node(const formats::Profile& profile, const std::string& hostname,
                                       const std::optional<std::string>& requested) {
  if (requested) {
    const std::string names = declared_node_names(profile);
    // An empty name is a script's unset variable (--node "$NODE"), never
    // "match the hostname".
    if (requested->empty())
      throw compat::InputError("command line", 0, 0, "--node",
                               "needs a node name of " + profile.source + " (declared: " + names +
                                   "); leave --node out to match the hostname");
    if (const formats::NodeSpec* n = profile.find_node(*requested)) return n;
    throw compat::InputError(profile.source, 0, 0, "nodes",
                             "--node " + *requested + " is not declared (declared: " + names + ")");
  }
  if (const formats::NodeSpec* n = profile.find_node(hostname)) return n;
  std::string short_name = hostname.substr(0, hostname.find('.'));
  return profile.find_node(short_name);
}

}  // namespace hn::probes
