#pragma once
// NetState <-> YAML for snapshots. Layout (keys are the struct field names):
//   addresses: [{nic, address, prefix_len, family, scope}]
//   routes:    [{table, dst, gateway, oif, prefsrc, metric, family, type, protocol}]
// Empty strings and zero metrics are omitted on write and restored on read,
// so a round trip is exact. Reading rejects unknown keys (compat::InputError).

#include <yaml-cpp/yaml.h>

#include <string>

#include "stack/l6_netplane/state.h"

namespace hn::stack::netplane {

YAML::Node to_yaml(const NetState& state);
NetState net_state_from_yaml(const YAML::Node& node, const std::string& source,
                             const std::string& path);

}  // namespace hn::stack::netplane
