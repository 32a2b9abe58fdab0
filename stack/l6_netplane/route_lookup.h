#pragma once
// Route lookups as `ip route get DST [from SRC]` answers them: which NIC,
// source address and next hop the kernel picks, and which FIB entry won
// (`ip route get ... fibmatch`). The live source asks the kernel
// (RTM_GETROUTE); emulate_route_get() answers from captured state so that
// snapshots replay the same checks.

#include <string>

#include "stack/l6_netplane/state.h"

namespace hn::stack::netplane {

struct RouteQuery {
  std::string dst;  // address text
  std::string src;  // optional: as a socket bound to this local address (`from SRC`)
  bool operator==(const RouteQuery&) const = default;
};

struct RouteLookup {
  std::string error;      // non-empty when the kernel refuses ("Network is unreachable")
  std::string oif;        // egress NIC; "lo" for a local destination
  std::string src;        // the source address the packet would carry
  std::string gateway;    // next hop, empty when on-link
  std::string type;       // unicast, local, broadcast, ...
  int table = 0;          // table of the winning route
  std::string route_dst;  // the winning FIB entry: "default" or "10.10.0.0/24"
  int route_metric = 0;
  std::string note;  // caveats (multipath, unmodelled rule selectors)
  bool operator==(const RouteLookup&) const = default;

  bool ok() const { return error.empty(); }
  // The route that won, as `ip route` prints it:
  // "10.10.0.0/24 dev eth1 src 10.10.0.1 table main" or "unreachable (Network is unreachable)".
  std::string describe() const;
};

// "main", "local", "default" or the number.
std::string table_name(int table);

// Emulates the kernel's lookup on captured state: rules by priority (the
// kernel's default rules when none were captured; `from` selectors match only
// when the query has a source), then in each table the longest prefix, the
// lowest metric among equals, dump order last; `throw` routes and
// suppress_prefixlength fall through to the next rule. The source is the
// query's, else the route's prefsrc, else the first address of the egress NIC
// (one in the gateway's subnet first), as inet_select_addr() picks it.
RouteLookup emulate_route_get(const NetState& state, const RouteQuery& query);

}  // namespace hn::stack::netplane
