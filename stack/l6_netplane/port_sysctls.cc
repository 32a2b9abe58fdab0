#include "stack/l6_netplane/port_sysctls.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "stack/l7_physical/source.h"

namespace hn::stack::netplane {

namespace {

long long port(std::string_view s, std::string_view whole) {
  long long v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0 || v > 65535)
    throw std::invalid_argument("'" + std::string(whole) + "' is not a list of ports (0-65535)");
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::strchr(" \t\r\n", s.front())) s.remove_prefix(1);
  while (!s.empty() && std::strchr(" \t\r\n", s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::pair<long long, long long> parse_port_range_text(std::string_view text) {
  std::string_view t = trim(text);
  size_t sep = t.find_first_of(" \t-");
  if (sep == std::string_view::npos)
    throw std::invalid_argument("'" + std::string(text) + "' is not two ports (low high)");
  long long lo = port(t.substr(0, sep), text), hi = port(trim(t.substr(sep + 1)), text);
  if (hi < lo) throw std::invalid_argument("'" + std::string(text) + "' ends before it starts");
  return {lo, hi};
}

std::vector<std::pair<long long, long long>> parse_reserved_ports_text(std::string_view text) {
  std::vector<std::pair<long long, long long>> out;
  std::string_view t = trim(text);
  while (!t.empty()) {
    size_t comma = t.find(',');
    std::string_view item = trim(t.substr(0, comma));
    size_t dash = item.find('-');
    long long lo = port(item.substr(0, dash), text);
    long long hi = dash == std::string_view::npos ? lo : port(item.substr(dash + 1), text);
    if (hi < lo) throw std::invalid_argument("'" + std::string(item) + "' ends before it starts");
    out.push_back({lo, hi});
    if (comma == std::string_view::npos) break;
    t = t.substr(comma + 1);
  }
  return out;
}

LocalPortConfig read_local_port_config(const std::string& proc_root) {
  auto read = [](const std::string& path, bool required) -> std::string {
    std::ifstream in(path);
    if (!in) {
      if (!required) return "";
      throw physical::SourceError("cannot read " + path + ": " + std::strerror(errno));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string dir = proc_root + "/sys/net/ipv4/";
  LocalPortConfig c;
  try {
    auto [lo, hi] = parse_port_range_text(read(dir + "ip_local_port_range", true));
    c.low = lo;
    c.high = hi;
    c.reserved = parse_reserved_ports_text(read(dir + "ip_local_reserved_ports", false));
  } catch (const std::invalid_argument& e) {
    throw physical::SourceError(dir + ": " + e.what());
  }
  return c;
}

}  // namespace hn::stack::netplane
