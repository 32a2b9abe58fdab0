#pragma once
// The kernel's ephemeral-port settings: the local ports an outgoing
// connection may be given (net.ipv4.ip_local_port_range) minus the reserved
// ones (net.ipv4.ip_local_reserved_ports). A service that binds a fixed port
// inside the unreserved part can find it taken by any process's connect().
//
// read_local_port_config() reads <proc_root>/sys/net/ipv4/...; it returns
// promptly (two small procfs files) and throws physical::SourceError naming
// the file when the range is missing or unparsable. A missing reserved-ports
// file means nothing is reserved.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hn::stack::netplane {

struct LocalPortConfig {
  long long low = 0, high = 0;                            // inclusive
  std::vector<std::pair<long long, long long>> reserved;  // inclusive ranges
};

LocalPortConfig read_local_port_config(const std::string& proc_root = "/proc");

// The file formats, for snapshots and tests: "32768\t60999" and "8000-8010,9000".
// Both throw std::invalid_argument quoting the text.
std::pair<long long, long long> parse_port_range_text(std::string_view text);
std::vector<std::pair<long long, long long>> parse_reserved_ports_text(std::string_view text);

}  // namespace hn::stack::netplane
