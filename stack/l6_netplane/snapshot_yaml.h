#pragma once
// NetState <-> YAML for snapshots. Layout (keys are the struct field names):
//   addresses: [{nic, address, prefix_len, family, scope}]
//   routes:    [{table, dst, gateway, oif, prefsrc, metric, family, type, protocol}]
//   rules:     [{priority, family, src, dst, iif, oif, fwmark, fwmask, invert, action,
//                table, goto, suppress_prefixlen, unmodelled}]
//   ipv4_conf: {all: {rp_filter, arp_ignore, arp_announce}, default: {...}, <nic>: {...}}
// Empty strings, zero numbers and other defaults are omitted on write and
// restored on read, so a round trip is exact. Snapshots written before rules
// and ipv4_conf existed load with both empty (the route emulation then uses
// the kernel's default rules). Reading rejects unknown keys (compat::InputError).

#include <yaml-cpp/yaml.h>

#include <string>

#include "stack/l6_netplane/state.h"

namespace hn::stack::netplane {

YAML::Node to_yaml(const NetState& state);
NetState net_state_from_yaml(const YAML::Node& node, const std::string& source,
                             const std::string& path);

}  // namespace hn::stack::netplane
