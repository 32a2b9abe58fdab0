#pragma once
// IPv4/IPv6 addresses and prefixes as values, for subnet membership and
// route matching. Parsing is strict (inet_pton); errors are
// std::invalid_argument naming the text.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hn::stack::netplane {

struct IpAddress {
  int family = 0;                        // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> bytes{};  // network order; IPv4 uses the first 4
  bool operator==(const IpAddress&) const = default;
  std::string str() const;
  int bits() const { return family == 4 ? 32 : 128; }
};

struct IpPrefix {
  IpAddress address;  // host bits cleared
  int length = 0;
  bool operator==(const IpPrefix&) const = default;
  std::string str() const;
  bool contains(const IpAddress& a) const;
};

// "10.0.0.1" or "fe80::1". Throws std::invalid_argument.
IpAddress parse_ip(std::string_view text);
std::optional<IpAddress> try_parse_ip(std::string_view text);
// "10.0.0.0/24"; a bare address is a host prefix. Host bits must be zero
// unless allow_host_bits (then they are cleared: "10.0.0.5/24" -> 10.0.0.0/24).
IpPrefix parse_prefix(std::string_view text, bool allow_host_bits = false);
// A network as a configuration file declares it: "10.0.0.0/24", the prefix
// length required (a bare address there is almost always a forgotten /len,
// which parse_prefix would read as a single host) and host bits zero.
// Throws std::invalid_argument.
IpPrefix parse_network(std::string_view text);

}  // namespace hn::stack::netplane
