#pragma once
// The small value grammars communication libraries use, parsed strictly.
// Every parser throws std::invalid_argument with a message that says what was
// expected; callers add the file, line and variable (compat::InputError).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hn::compat::translate {

// Decimal or 0x-hex, optional sign, nothing else ("20", "-1", "0x800000").
std::optional<long long> parse_int(std::string_view s);
bool is_ip_address(std::string_view s);
// A plausible Linux interface name or prefix: 1-15 characters, no blanks,
// '/', ',' or ':' separators.
bool is_ifname(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& items, const std::string& sep);
std::string to_upper(std::string_view s);
std::string to_lower(std::string_view s);

// NCCL_SOCKET_IFNAME / HCCL_SOCKET_IFNAME: a comma list of prefixes; a
// leading '^' excludes, a leading '=' means exact names, "^=" both.
struct IfnameSpec {
  bool exclude = false;
  bool exact = false;
  std::vector<std::string> items;
};
IfnameSpec parse_ifname_spec(std::string_view s);
std::string format_ifname_spec(const IfnameSpec& s);
// Whether the spec lets this NIC be chosen (NCCL/HCCL matching rules).
bool ifname_selects(const IfnameSpec& s, std::string_view nic);

// Port specs: "p", "a-b", comma lists of those, or "auto" (HCCL_*_PORT_RANGE).
struct PortRange {
  long long lo = 0, hi = 0;
  bool operator==(const PortRange&) const = default;
};
struct PortSpec {
  bool is_auto = false;
  std::vector<PortRange> ranges;
};
PortSpec parse_port_spec(std::string_view s);
std::string format_port_ranges(const std::vector<PortRange>& r);
// /proc/sys/net/ipv4/ip_local_port_range: "32768<TAB>60999" (also "a-b").
PortRange parse_local_port_range(std::string_view s);
// /proc/sys/net/ipv4/ip_local_reserved_ports: "" or "8000-8010,9000".
std::vector<PortRange> parse_port_list(std::string_view s);
// The ports of `r` that lie in `ephemeral` and are not reserved.
std::vector<PortRange> ephemeral_overlap(const PortRange& r, const PortRange& ephemeral,
                                         const std::vector<PortRange>& reserved);

// "MaxCnt:3,HoldTime:5000,IntervalTime:1000" -> key -> value; every key must
// be one of `allowed`, each at most once, each an integer.
std::map<std::string, long long> parse_kv(std::string_view s,
                                          const std::vector<std::string>& allowed);

}  // namespace hn::compat::translate
