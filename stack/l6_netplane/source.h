#pragma once
// The L6 source interface: probes read addresses and routes only through it,
// so plane checks run on the live kernel and on snapshots alike.
//
// Contract: calls return promptly (netlink dumps); the live implementation
// throws physical::SourceError when netlink itself fails.

#include <memory>

#include "stack/l6_netplane/state.h"

namespace hn::stack::netplane {

class NetplaneSource {
 public:
  virtual ~NetplaneSource() = default;
  virtual std::vector<InterfaceAddress> addresses() const = 0;
  virtual std::vector<Route> routes() const = 0;

  NetState read_all() const { return NetState{addresses(), routes()}; }
};

std::unique_ptr<NetplaneSource> make_live_netplane_source();
std::unique_ptr<NetplaneSource> make_snapshot_netplane_source(NetState state);

// The NIC of the IPv4 default route in the main table with the lowest metric;
// empty when there is none. This is what a plane's `nic: auto` means.
std::string default_route_nic(const std::vector<Route>& routes);

}  // namespace hn::stack::netplane
