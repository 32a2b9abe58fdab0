#include "stack/l6_netplane/ip_address.h"

#include <arpa/inet.h>

#include <stdexcept>

namespace hn::stack::netplane {

std::string IpAddress::str() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family == 4 ? AF_INET : AF_INET6, bytes.data(), buf, sizeof buf);
  return buf;
}

std::string IpPrefix::str() const {
  return address.str() + "/" + std::to_string(length);
}

bool IpPrefix::contains(const IpAddress& a) const {
  if (a.family != address.family) return false;
  int full = length / 8, rest = length % 8;
  for (int i = 0; i < full; ++i)
    if (a.bytes[i] != address.bytes[i]) return false;
  if (rest) {
    std::uint8_t mask = static_cast<std::uint8_t>(0xff << (8 - rest));
    if ((a.bytes[full] & mask) != (address.bytes[full] & mask)) return false;
  }
  return true;
}

std::optional<IpAddress> try_parse_ip(std::string_view text) {
  std::string s(text);
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) {
    a.family = 4;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    a.family = 6;
    return a;
  }
  return std::nullopt;
}

IpAddress parse_ip(std::string_view text) {
  auto a = try_parse_ip(text);
  if (!a) throw std::invalid_argument("'" + std::string(text) + "' is not an IPv4 or IPv6 address");
  return *a;
}

IpPrefix parse_prefix(std::string_view text, bool allow_host_bits) {
  auto slash = text.find('/');
  IpPrefix p;
  p.address = parse_ip(text.substr(0, slash));
  if (slash == std::string_view::npos) {
    p.length = p.address.bits();
    return p;
  }
  std::string len(text.substr(slash + 1));
  size_t used = 0;
  int n = -1;
  try {
    n = std::stoi(len, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != len.size() || n < 0 || n > p.address.bits())
    throw std::invalid_argument("'" + std::string(text) + "' has an invalid prefix length");
  p.length = n;
  IpPrefix cleared = p;
  int full = n / 8, rest = n % 8;
  for (int i = full; i < 16; ++i) {
    if (i == full && rest)
      cleared.address.bytes[i] &= static_cast<std::uint8_t>(0xff << (8 - rest));
    else
      cleared.address.bytes[i] = 0;
  }
  if (!allow_host_bits && !(cleared == p))
    throw std::invalid_argument("'" + std::string(text) + "' has host bits set (did you mean " +
                                cleared.str() + "?)");
  return cleared;
}

IpPrefix parse_network(std::string_view text) {
  if (text.find('/') == std::string_view::npos) {
    IpAddress a = parse_ip(text);
    throw std::invalid_argument("'" + std::string(text) +
                                "' has no prefix length: write the network with its length, "
                                "e.g. " +
                                a.str() + (a.family == 4 ? "/24" : "/64") + " (or /" +
                                std::to_string(a.bits()) + " for a single address)");
  }
  return parse_prefix(text);
}

}  // namespace hn::stack::netplane
