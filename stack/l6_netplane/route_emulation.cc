// emulate_route_get(): the kernel's FIB lookup replayed on captured state.
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "stack/l6_netplane/ip_address.h"
#include "stack/l6_netplane/route_lookup.h"

namespace hn::stack::netplane {

namespace {

// The errors the kernel returns for each refusing route or rule type
// (fib_props[] and fib_rules), as strerror() words them.
constexpr const char* kNetUnreach = "Network is unreachable";
constexpr const char* kHostUnreach = "No route to host";
constexpr const char* kInvalid = "Invalid argument";
constexpr const char* kAccess = "Permission denied";

std::optional<IpPrefix> route_prefix(const Route& r) {
  if (r.dst == "default" || r.dst.empty()) {
    IpPrefix p;
    p.address.family = r.family;
    p.length = 0;
    return p;
  }
  try {
    return parse_prefix(r.dst, true);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

bool prefix_matches(const std::string& text, const IpAddress& a) {
  if (text.empty()) return true;
  try {
    return parse_prefix(text, true).contains(a);
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::vector<Rule> default_rules(int family) {
  std::vector<Rule> r;
  auto add = [&](int prio, int table) {
    Rule x;
    x.priority = prio;
    x.family = family;
    x.table = table;
    r.push_back(x);
  };
  add(0, 255);
  add(32766, 254);
  if (family == 4) add(32767, 253);
  return r;
}

// Whether a rule's selectors match a locally generated packet to dst from
// src (absent = unbound socket, saddr 0) with no mark and no bound device.
bool rule_matches(const Rule& r, const IpAddress& dst, const std::optional<IpAddress>& src,
                  std::string& note) {
  if (!r.unmodelled.empty()) {
    note = "rule " + std::to_string(r.priority) + " (" + r.unmodelled +
           ") is not modelled and was skipped";
    return false;
  }
  bool m = true;
  if (!r.src.empty()) m = m && src && prefix_matches(r.src, *src);
  m = m && prefix_matches(r.dst, dst);
  m = m && (r.iif.empty() || r.iif == "lo");  // output lookups carry iif = lo
  m = m && r.oif.empty();
  std::uint32_t mask = r.fwmask ? r.fwmask : (r.fwmark ? 0xffffffffu : 0u);
  m = m && (r.fwmark & mask) == 0;  // unmarked traffic
  return m != r.invert;
}

const Route* longest_match(const std::vector<Route>& routes, int table, const IpAddress& dst,
                           int& best_len) {
  const Route* best = nullptr;
  best_len = -1;
  for (const auto& r : routes) {
    if (r.table != table || r.family != dst.family) continue;
    auto p = route_prefix(r);
    if (!p || !(p->length == 0 || p->contains(dst))) continue;
    if (p->length > best_len || (p->length == best_len && r.metric < best->metric)) {
      best = &r;
      best_len = p->length;
    }
  }
  return best;
}

// inet_select_addr(): the first address of the NIC usable at the route's
// scope, one in the gateway's subnet first.
std::string select_source(const NetState& s, const std::string& nic, const std::string& gateway,
                          int family) {
  auto gw = try_parse_ip(gateway);
  std::string first, first_link;
  for (const auto& a : s.addresses) {
    if (a.nic != nic || a.family != family) continue;
    if (a.scope == "host") continue;
    if (a.scope == "link") {
      if (first_link.empty()) first_link = a.address;
      continue;
    }
    if (first.empty()) first = a.address;
    if (gw) {
      auto ip = try_parse_ip(a.address);
      IpPrefix p;
      if (ip) {
        p.address = *ip;
        p.length = a.prefix_len;
        if (parse_prefix(p.str(), true).contains(*gw)) return a.address;
      }
    }
  }
  if (!first.empty()) return first;
  return gateway.empty() ? first_link : "";
}

RouteLookup from_route(const NetState& s, const Route& r, const IpAddress& dst,
                       const std::optional<IpAddress>& src) {
  RouteLookup out;
  out.type = r.type.empty() ? "unicast" : r.type;
  out.table = r.table;
  out.route_dst = r.dst;
  out.route_metric = r.metric;
  out.gateway = r.gateway;
  if (out.type == "unreachable")
    out.error = kHostUnreach;
  else if (out.type == "blackhole")
    out.error = kInvalid;
  else if (out.type == "prohibit")
    out.error = kAccess;
  if (!out.ok()) return out;
  if (out.type == "local") {
    out.oif = "lo";
    out.src = src ? src->str() : dst.str();
    return out;
  }
  out.oif = r.oif;
  if (r.oif.empty()) out.note = "multipath route: the emulation does not pick a next hop";
  out.src = src                  ? src->str()
            : !r.prefsrc.empty() ? r.prefsrc
                                 : select_source(s, r.oif, r.gateway, r.family);
  return out;
}

}  // namespace

std::string table_name(int table) {
  switch (table) {
    case 254:
      return "main";
    case 255:
      return "local";
    case 253:
      return "default";
    default:
      return std::to_string(table);
  }
}

std::string RouteLookup::describe() const {
  if (!ok() && route_dst.empty()) return "no route (" + error + ")";
  std::string s;
  if (type != "unicast" && !type.empty()) s += type + " ";
  s += route_dst.empty() ? "?" : route_dst;
  if (!gateway.empty()) s += " via " + gateway;
  if (!oif.empty()) s += " dev " + oif;
  if (!src.empty()) s += " src " + src;
  s += " table " + table_name(table);
  if (route_metric) s += " metric " + std::to_string(route_metric);
  if (!ok()) s += " (" + error + ")";
  return s;
}

RouteLookup emulate_route_get(const NetState& state, const RouteQuery& query) {
  RouteLookup out;
  auto dst = try_parse_ip(query.dst);
  if (!dst) {
    out.error = "'" + query.dst + "' is not an address";
    return out;
  }
  std::optional<IpAddress> src;
  if (!query.src.empty()) {
    src = try_parse_ip(query.src);
    if (!src) {
      out.error = "'" + query.src + "' is not an address";
      return out;
    }
  }
  if (src) {
    bool local = std::any_of(state.addresses.begin(), state.addresses.end(), [&](const auto& a) {
      auto ip = try_parse_ip(a.address);
      return ip && *ip == *src;
    });
    // IPv4 refuses to route from an address the node does not have
    // (ENETUNREACH, as a socket cannot bind to it); IPv6 routes and picks
    // its own source.
    if (!local && src->family == 4) {
      out.error = kNetUnreach;
      out.note = query.src + " is not an address of this node";
      return out;
    }
    if (!local) src.reset();
  }
  std::vector<Rule> rules;
  for (const auto& r : state.rules)
    if (r.family == dst->family) rules.push_back(r);
  if (rules.empty()) rules = default_rules(dst->family);
  std::stable_sort(rules.begin(), rules.end(),
                   [](const Rule& a, const Rule& b) { return a.priority < b.priority; });
  std::string note;
  for (size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    if (!rule_matches(r, *dst, src, note)) continue;
    if (r.action == "nop") continue;
    if (r.action == "goto") {
      auto it = std::find_if(rules.begin() + static_cast<long>(i) + 1, rules.end(),
                             [&](const Rule& x) { return x.priority >= r.goto_priority; });
      if (it == rules.end()) break;
      i = static_cast<size_t>(it - rules.begin()) - 1;
      continue;
    }
    if (r.action == "blackhole" || r.action == "unreachable" || r.action == "prohibit") {
      out.error = r.action == "blackhole"  ? kInvalid
                  : r.action == "prohibit" ? kAccess
                                           : kNetUnreach;
      out.note = "refused by rule " + std::to_string(r.priority) + " (" + r.action + ")";
      return out;
    }
    int len = -1;
    const Route* best = longest_match(state.routes, r.table, *dst, len);
    if (!best || best->type == "throw") continue;
    if (r.suppress_prefixlen >= 0 && len <= r.suppress_prefixlen) continue;
    out = from_route(state, *best, *dst, src);
    if (out.note.empty()) out.note = note;
    // A loopback source may only leave through lo (EINVAL otherwise).
    if (out.ok() && src && src->family == 4 && src->bytes[0] == 127 && out.oif != "lo") {
      out = RouteLookup{};
      out.error = kInvalid;
    }
    return out;
  }
  out.error = kNetUnreach;
  out.note = note;
  return out;
}

}  // namespace hn::stack::netplane
