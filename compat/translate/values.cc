#include "compat/translate/values.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace hn::compat::translate {

std::optional<long long> parse_int(std::string_view s) {
  if (s.empty() || s.size() > 40) return std::nullopt;
  std::string t(s);
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  bool hex = t.size() > i + 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X');
  size_t digits = hex ? i + 2 : i;
  if (digits >= t.size()) return std::nullopt;
  for (size_t k = digits; k < t.size(); ++k)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(t[k]))
              : std::isdigit(static_cast<unsigned char>(t[k]))))
      return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, hex ? 16 : 10);
  if (errno == ERANGE || end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

bool is_ip_address(std::string_view s) {
  std::string t(s);
  unsigned char buf[16];
  return inet_pton(AF_INET, t.c_str(), buf) == 1 || inet_pton(AF_INET6, t.c_str(), buf) == 1;
}

bool is_ifname(std::string_view s) {
  if (s.empty() || s.size() > 15) return false;
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == ',' || c == ':' ||
        c == '=' || c == '^' || !std::isprint(static_cast<unsigned char>(c)))
      return false;
  return true;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.emplace_back(
        s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

IfnameSpec parse_ifname_spec(std::string_view s) {
  IfnameSpec spec;
  if (!s.empty() && s[0] == '^') {
    spec.exclude = true;
    s.remove_prefix(1);
  }
  if (!s.empty() && s[0] == '=') {
    spec.exact = true;
    s.remove_prefix(1);
  }
  if (s.empty()) throw std::invalid_argument("expected a comma list of interface names");
  for (auto& item : split(s, ',')) {
    if (!is_ifname(item))
      throw std::invalid_argument("'" + item + "' is not an interface name or prefix " +
                                  "(expected [^][=]name[,name...])");
    spec.items.push_back(item);
  }
  return spec;
}

std::string format_ifname_spec(const IfnameSpec& s) {
  return std::string(s.exclude ? "^" : "") + (s.exact ? "=" : "") + join(s.items, ",");
}

bool ifname_selects(const IfnameSpec& s, std::string_view nic) {
  bool hit = std::any_of(s.items.begin(), s.items.end(), [&](const std::string& i) {
    return s.exact ? nic == i : nic.substr(0, i.size()) == i;
  });
  return s.exclude ? !hit : hit;
}

namespace {
long long port_number(std::string_view s) {
  auto v = parse_int(s);
  if (!v || s.find_first_not_of("0123456789") != std::string_view::npos || *v < 0 || *v > 65535)
    throw std::invalid_argument("'" + std::string(s) + "' is not a port number (0-65535)");
  return *v;
}
}  // namespace

PortSpec parse_port_spec(std::string_view s) {
  PortSpec spec;
  if (s == "auto") {
    spec.is_auto = true;
    return spec;
  }
  if (s.empty()) throw std::invalid_argument("expected a port, a range a-b, a list, or auto");
  for (auto& item : split(s, ',')) {
    size_t dash = item.find('-');
    PortRange r;
    if (dash == std::string::npos) {
      r.lo = r.hi = port_number(item);
    } else {
      r.lo = port_number(std::string_view(item).substr(0, dash));
      r.hi = port_number(std::string_view(item).substr(dash + 1));
      if (r.hi < r.lo)
        throw std::invalid_argument("port range '" + item + "' ends before it starts");
    }
    spec.ranges.push_back(r);
  }
  return spec;
}

std::string format_port_ranges(const std::vector<PortRange>& rs) {
  std::string s;
  for (const auto& r : rs)
    s += (s.empty() ? "" : ",") +
         (r.lo == r.hi ? std::to_string(r.lo) : std::to_string(r.lo) + "-" + std::to_string(r.hi));
  return s;
}

PortRange parse_local_port_range(std::string_view s) {
  std::string t(s);
  for (auto& c : t)
    if (c == '\t' || c == '-' || c == '\n') c = ' ';
  size_t a = t.find_first_not_of(' ');
  size_t b = a == std::string::npos ? a : t.find(' ', a);
  size_t c = b == std::string::npos ? b : t.find_first_not_of(' ', b);
  size_t d = c == std::string::npos ? c : t.find(' ', c);
  if (c == std::string::npos ||
      (d != std::string::npos && t.find_first_not_of(' ', d) != std::string::npos))
    throw std::invalid_argument("expected two port numbers (low high), got '" + std::string(s) +
                                "'");
  PortRange r{port_number(t.substr(a, b - a)),
              port_number(t.substr(c, d == std::string::npos ? d : d - c))};
  if (r.hi < r.lo) throw std::invalid_argument("the local port range ends before it starts");
  return r;
}

std::vector<PortRange> parse_port_list(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  if (s.empty()) return {};
  return parse_port_spec(s).ranges;
}

std::vector<PortRange> ephemeral_overlap(const PortRange& r, const PortRange& eph,
                                         const std::vector<PortRange>& reserved) {
  PortRange in{std::max(r.lo, eph.lo), std::min(r.hi, eph.hi)};
  if (in.lo > in.hi) return {};
  std::vector<PortRange> out{in};
  for (const auto& res : reserved) {
    std::vector<PortRange> next;
    for (const auto& piece : out) {
      if (res.hi < piece.lo || res.lo > piece.hi) {
        next.push_back(piece);
        continue;
      }
      if (res.lo > piece.lo) next.push_back({piece.lo, res.lo - 1});
      if (res.hi < piece.hi) next.push_back({res.hi + 1, piece.hi});
    }
    out = std::move(next);
  }
  return out;
}

std::map<std::string, long long> parse_kv(std::string_view s,
                                          const std::vector<std::string>& allowed) {
  std::map<std::string, long long> out;
  for (auto& item : split(s, ',')) {
    size_t colon = item.find(':');
    std::string key = item.substr(0, colon);
    if (colon == std::string::npos)
      throw std::invalid_argument("'" + item + "' is not Key:value (keys: " + join(allowed, ", ") +
                                  ")");
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw std::invalid_argument("unknown key '" + key + "' (keys: " + join(allowed, ", ") + ")");
    if (out.count(key)) throw std::invalid_argument("key '" + key + "' is given twice");
    auto v = parse_int(item.substr(colon + 1));
    if (!v)
      throw std::invalid_argument("'" + item.substr(colon + 1) + "' for " + key +
                                  " is not an integer");
    out[key] = *v;
  }
  return out;
}

}  // namespace hn::compat::translate
