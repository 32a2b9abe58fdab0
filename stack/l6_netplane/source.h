#pragma once
// The L6 source interface: probes read addresses, routes, rules, IPv4
// settings and route lookups only through it, so plane checks run on the live
// kernel and on snapshots alike.
//
// Contract: calls return promptly (netlink dumps and requests with a 1 s
// receive deadline, small procfs files); the live implementation throws
// physical::SourceError when netlink itself fails or does not answer in time.
// A route the kernel refuses (unreachable) is a RouteLookup with an error,
// not an exception.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stack/l6_netplane/route_lookup.h"
#include "stack/l6_netplane/state.h"

namespace hn::stack::netplane {

class NetplaneSource {
 public:
  virtual ~NetplaneSource() = default;
  virtual std::vector<InterfaceAddress> addresses() const = 0;
  virtual std::vector<Route> routes() const = 0;
  virtual std::vector<Rule> rules() const = 0;
  virtual std::map<std::string, Ipv4Conf> ipv4_conf() const = 0;
  // One answer per query, in order; one netlink socket for the whole batch.
  virtual std::vector<RouteLookup> route_get(const std::vector<RouteQuery>& queries) const = 0;

  NetState read_all() const { return NetState{addresses(), routes(), rules(), ipv4_conf()}; }
};

// Reads the running kernel of the caller's network namespace. proc_root is a
// parameter so that the procfs parsing can be tested on fixture trees.
std::unique_ptr<NetplaneSource> make_live_netplane_source(std::string proc_root = "/proc");
// Reads addresses, routes, rules and ipv4_conf of `inner` at most once and
// serves that reading (one coherent view per run); route_get() always asks
// `inner`. Thread-safe.
std::unique_ptr<NetplaneSource> make_cached_netplane_source(
    std::shared_ptr<const NetplaneSource> inner);
// Serves a capture; route_get() is emulate_route_get() over it.
std::unique_ptr<NetplaneSource> make_snapshot_netplane_source(NetState state);

// The NIC of the IPv4 default route in the main table with the lowest metric;
// empty when there is none. This is what a plane's `nic: auto` means.
std::string default_route_nic(const std::vector<Route>& routes);

}  // namespace hn::stack::netplane
