#pragma once
// L6 network-plane state as plain data: addresses, routes, policy rules and
// the per-interface IPv4 settings that decide reply paths, as the kernel
// holds them. Filled by a NetplaneSource (live netlink/procfs or a snapshot).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hn::stack::netplane {

struct InterfaceAddress {
  std::string nic;
  std::string address;  // "10.10.0.1" (no prefix length)
  int prefix_len = 0;
  int family = 4;     // 4 or 6
  std::string scope;  // global, link, host
  bool operator==(const InterfaceAddress&) const = default;
};

struct Route {
  int table = 254;      // 254 = main
  std::string dst;      // "default" or "10.10.0.0/24"
  std::string gateway;  // empty when directly connected
  std::string oif;      // egress NIC name, empty for multipath/blackhole
  std::string prefsrc;  // preferred source address, may be empty
  int metric = 0;
  int family = 4;
  std::string type;      // unicast, blackhole, unreachable, local, ...
  std::string protocol;  // kernel, boot, static, dhcp, ...
  bool operator==(const Route&) const = default;
};

// One policy-routing rule (`ip rule`). Selectors the route emulation does
// not model (uidrange, ipproto, ports, tos, l3mdev) are kept as text in
// `unmodelled` so a reader can see them; such a rule never matches in the
// emulation.
struct Rule {
  int priority = 0;
  int family = 4;
  std::string src;  // "10.10.0.0/24"; empty = from all
  std::string dst;  // empty = to all
  std::string iif;  // empty = any; "lo" matches locally generated traffic
  std::string oif;  // empty = any; set only matches sockets bound to a device
  std::uint32_t fwmark = 0;
  std::uint32_t fwmask = 0;
  bool invert = false;            // `not`
  std::string action = "lookup";  // lookup, goto, nop, blackhole, unreachable, prohibit
  int table = 0;                  // for lookup
  int goto_priority = 0;          // for goto
  int suppress_prefixlen = -1;    // `suppress_prefixlength N`; -1 = none
  std::string unmodelled;
  bool operator==(const Rule&) const = default;
};

// /proc/sys/net/ipv4/conf/<name>/{rp_filter,arp_ignore,arp_announce}; a
// value is absent when the file could not be read. The kernel applies
// max(conf/all, conf/<nic>) for each of the three.
struct Ipv4Conf {
  std::optional<int> rp_filter;
  std::optional<int> arp_ignore;
  std::optional<int> arp_announce;
  bool operator==(const Ipv4Conf&) const = default;
};

struct NetState {
  std::vector<InterfaceAddress> addresses;
  std::vector<Route> routes;  // every table
  std::vector<Rule> rules;    // every family; empty means the kernel's default rules
  std::map<std::string, Ipv4Conf> ipv4_conf;  // "all", "default" and one per NIC
  bool operator==(const NetState&) const = default;
};

}  // namespace hn::stack::netplane
