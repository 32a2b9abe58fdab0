#pragma once
// What the profile's planes mean on one node, resolved once for all L6
// checks: each plane's NICs (plane_nics.h; for a plane declared only by
// subnet, the NICs that carry an address in it), this node's address on the
// plane (nodes[].addresses, else the first address of a plane NIC inside the
// plane subnet), and the peers to check (the plane's `peers`, else the other
// nodes' addresses on the plane). Pure: built from readings, reads nothing.

#include <string>
#include <vector>

#include "formats/profile.h"
#include "probes/node_context.h"
#include "stack/l6_netplane/state.h"
#include "stack/l7_physical/inventory.h"

namespace hn::probes {

struct PlaneView {
  const stack::netplane::Plane* plane = nullptr;
  // The plane names its NIC (its `nic`, or nodes[].nics for this node); else
  // it is declared only by subnet and its NICs are those with an address in it.
  bool named = false;
  std::string unresolved_reason;  // non-empty: this node has no NIC for the plane
  std::vector<std::string> nics;  // present NICs of the plane, in link order
  std::string address;            // this node's plane address; empty when unknown
  bool address_declared = false;  // from nodes[].addresses (else found on a plane NIC)
  bool address_here = false;      // `address` is configured on some NIC of this node
  int address_prefix_len = 0;     // as configured, when found on a NIC
  // Non-empty when the plane has NICs here but this node lacks the address the
  // plane expects: the declared address is on no NIC here, or (undeclared) no
  // plane NIC has an address in the plane subnet. NET-PLANE-ADDRESS reports it;
  // checks that need the address (routes) skip, pointing there.
  std::string address_missing;
  std::vector<std::string> peers;  // addresses to reach over the plane (never our own)

  bool has_nic(const std::string& nic) const;
  std::string nic_list() const;                       // "eth1" or "ens1f0, ens1f1", "none"
  bool in_subnets(const std::string& address) const;  // false when the plane has no subnet
  bool is(stack::netplane::PlaneType t) const { return plane->type == t; }
};

struct NetplaneView {
  std::vector<PlaneView> planes;  // profile order
  // Planes whose NICs include nic, e.g. "plane mgmt" or "planes a, b"; "no plane".
  // Without `except` ("no other plane" when only it has the NIC).
  std::string planes_of(const std::string& nic, const PlaneView* except = nullptr) const;
  std::vector<const PlaneView*> of_type(stack::netplane::PlaneType t) const;
};

NetplaneView build_netplane_view(const formats::Profile& profile, const formats::NodeSpec* node,
                                 const std::vector<stack::physical::Link>& links,
                                 const std::vector<stack::netplane::InterfaceAddress>& addresses,
                                 const std::vector<stack::netplane::Route>& routes);

// The readings every L6 check starts from, and the view built on them.
struct NetReadings {
  std::vector<stack::physical::Link> links;
  std::vector<stack::netplane::InterfaceAddress> addresses;
  std::vector<stack::netplane::Route> routes;
  NetplaneView view;
};
// Reads links, addresses and routes from the node's sources (throws what
// they throw: the runner turns that into an ERROR finding).
NetReadings read_net(const NodeContext& ctx);

// Whether a and b are the same IP address (false when either is none).
bool same_ip(const std::string& a, const std::string& b);

// "a, b, c" ("none" when empty).
std::string join_list(const std::vector<std::string>& items);

}  // namespace hn::probes
