#pragma once
// Network plane definitions (docs/profile.md "Planes"): what a profile declares
// about one isolated network. Plain data shared by the profile reader, the L6
// readers and the probes that judge plane binding.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stack/l6_netplane/ip_address.h"

namespace hn::stack::netplane {

enum class PlaneType { kParameter, kData, kStorage, kManagement, kBusiness };

std::string_view to_string(PlaneType t);
// Throws std::invalid_argument listing the valid names.
PlaneType plane_type_from_string(std::string_view s);

struct RdmaExpectation {
  std::string device;  // mlx5_0; empty = any device bound to the plane NIC
  int port = 1;
  std::string gid_type = "RoCE v2";  // normalised: "RoCE v2", "RoCE v1" or "IB"
  std::optional<int> gid_index;
  std::optional<int> mtu;  // active MTU in bytes
};

struct Plane {
  std::string name;
  PlaneType type = PlaneType::kParameter;
  std::vector<IpPrefix> subnets;
  std::string nic;          // name or glob; "auto" = the NIC of the default route
  std::optional<int> vlan;  // 802.1q id when the plane is tagged
  std::string vlan_parent;  // expected parent of the vlan link, optional
  std::optional<int> mtu;
  std::optional<int> min_speed_mbps;
  std::optional<RdmaExpectation> rdma;
  std::vector<std::string> peers;  // addresses to check; else derived from nodes
  int line = 0;                    // where the profile declared it
};

// fnmatch-style glob used for NIC patterns (ens1f*, eth[01]).
bool nic_matches(std::string_view pattern, std::string_view name);

}  // namespace hn::stack::netplane
