#pragma once
// L6 network-plane state as plain data: addresses and routes as the kernel
// holds them. Filled by a NetplaneSource (live netlink or a snapshot).

#include <optional>
#include <string>
#include <vector>

namespace hn::stack::netplane {

struct InterfaceAddress {
  std::string nic;
  std::string address;  // "10.10.0.1" (no prefix length)
  int prefix_len = 0;
  int family = 4;       // 4 or 6
  std::string scope;    // global, link, host
  bool operator==(const InterfaceAddress&) const = default;
};

struct Route {
  int table = 254;         // 254 = main
  std::string dst;         // "default" or "10.10.0.0/24"
  std::string gateway;     // empty when directly connected
  std::string oif;         // egress NIC name, empty for multipath/blackhole
  std::string prefsrc;     // preferred source address, may be empty
  int metric = 0;
  int family = 4;
  std::string type;        // unicast, blackhole, unreachable, local, ...
  std::string protocol;    // kernel, boot, static, dhcp, ...
  bool operator==(const Route&) const = default;
};

struct NetState {
  std::vector<InterfaceAddress> addresses;
  std::vector<Route> routes;  // every table
  bool operator==(const NetState&) const = default;
};

}  // namespace hn::stack::netplane
