#pragma once
// Internal to hn_l6_netplane: the pieces of the live source. Not a public
// API; probes use NetplaneSource only. Each reader opens its own socket, so
// concurrent probes never share one.

#include <map>
#include <string>
#include <vector>

#include "stack/l6_netplane/route_lookup.h"
#include "stack/l6_netplane/state.h"

namespace hn::stack::netplane::detail {

// libnl dumps of this namespace (throw physical::SourceError).
std::vector<InterfaceAddress> read_addresses();
std::vector<Route> read_routes();
// RTM_GETRULE dumps for IPv4 and IPv6 (throws physical::SourceError).
std::vector<Rule> read_rules();
// RTM_GETROUTE per query, plus the RTM_F_FIB_MATCH form for the winning
// entry, on one socket (throws physical::SourceError on socket failures; a
// refusal is RouteLookup::error).
std::vector<RouteLookup> kernel_route_get(const std::vector<RouteQuery>& queries);
// <proc_root>/sys/net/ipv4/conf/*/{rp_filter,arp_ignore,arp_announce}; an
// unreadable directory gives an empty map, an unreadable file an absent value.
std::map<std::string, Ipv4Conf> read_ipv4_conf(const std::string& proc_root);

}  // namespace hn::stack::netplane::detail
