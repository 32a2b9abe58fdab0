#include "stack/l6_netplane/snapshot_yaml.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <stdexcept>

#include "compat/yaml_input.h"
#include "stack/l6_netplane/ip_address.h"

namespace hn::stack::netplane {

namespace {

void put(YAML::Node& n, const char* key, const std::string& v) {
  if (!v.empty()) n[key] = v;
}

std::string item(const std::string& base, size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

// ---- validation: a snapshot is replayed through the route emulation and
// the plane checks, so every address, prefix and enum must mean something.
// A bad value is an InputError here (exit 2), not a crash or a wrong verdict
// later. Values are those the live readers (libnl, raw netlink) produce.

int read_family(compat::YamlMap& m) {
  auto v = m.opt_int("family", 4, 6).value_or(4);
  if (v != 4 && v != 6)
    compat::throw_at(m.get("family"), m.source(), m.field("family"),
                     "expected 4 or 6, got " + std::to_string(v));
  return static_cast<int>(v);
}

std::string family_name(int family) {
  return family == 6 ? "IPv6" : "IPv4";
}

// An address of the given family; "" stays "" when allow_empty.
std::string read_ip(compat::YamlMap& m, std::string_view key, int family, bool required) {
  std::string text = required ? m.req_string(key) : m.opt_string(key).value_or("");
  if (text.empty() && !required) return text;
  auto ip = try_parse_ip(text);
  if (!ip)
    compat::throw_at(m.get(key), m.source(), m.field(key),
                     "'" + text + "' is not an IPv4 or IPv6 address");
  if (ip->family != family)
    compat::throw_at(m.get(key), m.source(), m.field(key),
                     "'" + text + "' is not an " + family_name(family) + " address (family is " +
                         std::to_string(family) + ")");
  return text;
}

// "default" (routes only) or a prefix "10.0.0.0/24" / a bare host address of
// the given family; "" stays "" when optional.
std::string read_prefix(compat::YamlMap& m, std::string_view key, int family, bool required,
                        bool allow_default) {
  std::string text = required ? m.req_string(key) : m.opt_string(key).value_or("");
  if ((text.empty() && !required) || (allow_default && text == "default")) return text;
  IpPrefix prefix;
  try {
    prefix = parse_prefix(text, true);
  } catch (const std::invalid_argument& e) {
    compat::throw_at(m.get(key), m.source(), m.field(key),
                     std::string(e.what()) + (allow_default ? " (expected default or a prefix "
                                                              "such as 10.0.0.0/24)"
                                                            : " (expected a prefix such as "
                                                              "10.0.0.0/24)"));
  }
  if (prefix.address.family != family)
    compat::throw_at(m.get(key), m.source(), m.field(key),
                     "'" + text + "' is not an " + family_name(family) + " prefix (family is " +
                         std::to_string(family) + ")");
  return text;
}

// One of `names`, or libnl's rendering of a number it has no name for (0x1f).
std::string read_enum(compat::YamlMap& m, std::string_view key,
                      std::initializer_list<const char*> names) {
  std::string text = m.opt_string(key).value_or("");
  if (text.empty()) return text;
  for (const char* n : names)
    if (text == n) return text;
  bool hex = text.size() > 2 && text.rfind("0x", 0) == 0 &&
             text.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
  if (hex) return text;
  std::string list;
  for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
  compat::throw_at(m.get(key), m.source(), m.field(key),
                   "unknown " + std::string(key) + " '" + text + "' (expected " + list + ")");
}

// The list under key; absent or null is an empty list, anything else an error.
YAML::Node read_list(compat::YamlMap& m, std::string_view key) {
  YAML::Node n = m.get(key);
  if (n.IsDefined() && !n.IsNull() && !n.IsSequence())
    compat::throw_at(n, m.source(), m.field(key), "expected a list");
  return n;
}

}  // namespace

YAML::Node to_yaml(const NetState& state) {
  YAML::Node root(YAML::NodeType::Map);
  YAML::Node addrs(YAML::NodeType::Sequence);
  for (const auto& a : state.addresses) {
    YAML::Node n;
    n["nic"] = a.nic;
    n["address"] = a.address;
    n["prefix_len"] = a.prefix_len;
    n["family"] = a.family;
    put(n, "scope", a.scope);
    addrs.push_back(n);
  }
  root["addresses"] = addrs;
  YAML::Node routes(YAML::NodeType::Sequence);
  for (const auto& r : state.routes) {
    YAML::Node n;
    n["table"] = r.table;
    n["dst"] = r.dst;
    put(n, "gateway", r.gateway);
    put(n, "oif", r.oif);
    put(n, "prefsrc", r.prefsrc);
    if (r.metric) n["metric"] = r.metric;
    n["family"] = r.family;
    put(n, "type", r.type);
    put(n, "protocol", r.protocol);
    routes.push_back(n);
  }
  root["routes"] = routes;
  YAML::Node rules(YAML::NodeType::Sequence);
  for (const auto& r : state.rules) {
    YAML::Node n;
    n["priority"] = r.priority;
    n["family"] = r.family;
    put(n, "src", r.src);
    put(n, "dst", r.dst);
    put(n, "iif", r.iif);
    put(n, "oif", r.oif);
    if (r.fwmark) n["fwmark"] = r.fwmark;
    if (r.fwmask) n["fwmask"] = r.fwmask;
    if (r.invert) n["invert"] = true;
    if (r.action != "lookup") n["action"] = r.action;
    if (r.table) n["table"] = r.table;
    if (r.goto_priority) n["goto"] = r.goto_priority;
    if (r.suppress_prefixlen >= 0) n["suppress_prefixlen"] = r.suppress_prefixlen;
    put(n, "unmodelled", r.unmodelled);
    rules.push_back(n);
  }
  root["rules"] = rules;
  YAML::Node conf(YAML::NodeType::Map);
  for (const auto& [name, c] : state.ipv4_conf) {
    YAML::Node n(YAML::NodeType::Map);
    if (c.rp_filter) n["rp_filter"] = *c.rp_filter;
    if (c.arp_ignore) n["arp_ignore"] = *c.arp_ignore;
    if (c.arp_announce) n["arp_announce"] = *c.arp_announce;
    conf[name] = n;
  }
  root["ipv4_conf"] = conf;
  return root;
}

NetState net_state_from_yaml(const YAML::Node& node, const std::string& source,
                             const std::string& path) {
  compat::YamlMap m(node, source, path);
  NetState s;
  YAML::Node addrs = read_list(m, "addresses");
  for (size_t i = 0; addrs.IsSequence() && i < addrs.size(); ++i) {
    compat::YamlMap a(addrs[i], source, item(m.field("addresses"), i));
    InterfaceAddress ia;
    ia.nic = a.req_string("nic");
    ia.family = read_family(a);
    ia.address = read_ip(a, "address", ia.family, true);
    ia.prefix_len =
        static_cast<int>(a.opt_int("prefix_len", 0, ia.family == 6 ? 128 : 32).value_or(0));
    ia.scope = read_enum(a, "scope", {"global", "site", "link", "host", "nowhere"});
    a.finish();
    s.addresses.push_back(ia);
  }
  YAML::Node routes = read_list(m, "routes");
  for (size_t i = 0; routes.IsSequence() && i < routes.size(); ++i) {
    compat::YamlMap r(routes[i], source, item(m.field("routes"), i));
    Route rt;
    rt.table = static_cast<int>(r.opt_int("table", 0, 0x7fffffffLL).value_or(254));
    rt.family = read_family(r);
    rt.dst = read_prefix(r, "dst", rt.family, true, true);
    rt.gateway = read_ip(r, "gateway", rt.family, false);
    rt.oif = r.opt_string("oif").value_or("");
    rt.prefsrc = read_ip(r, "prefsrc", rt.family, false);
    rt.metric = static_cast<int>(r.opt_int("metric", 0, 0x7fffffffLL).value_or(0));
    rt.type = read_enum(r, "type",
                        {"unspec", "unicast", "local", "broadcast", "anycast", "multicast",
                         "blackhole", "unreachable", "prohibit", "throw", "nat", "xresolve"});
    // Free text: /etc/iproute2/rt_protos may name any number (bird, zebra, ...).
    rt.protocol = r.opt_string("protocol").value_or("");
    r.finish();
    s.routes.push_back(rt);
  }
  YAML::Node rules = read_list(m, "rules");
  for (size_t i = 0; rules.IsSequence() && i < rules.size(); ++i) {
    compat::YamlMap r(rules[i], source, item(m.field("rules"), i));
    Rule rule;
    rule.priority = static_cast<int>(r.opt_int("priority", 0, 0xffffffffLL).value_or(0));
    rule.family = read_family(r);
    rule.src = read_prefix(r, "src", rule.family, false, false);
    rule.dst = read_prefix(r, "dst", rule.family, false, false);
    rule.iif = r.opt_string("iif").value_or("");
    rule.oif = r.opt_string("oif").value_or("");
    rule.fwmark = static_cast<std::uint32_t>(r.opt_int("fwmark", 0, 0xffffffffLL).value_or(0));
    rule.fwmask = static_cast<std::uint32_t>(r.opt_int("fwmask", 0, 0xffffffffLL).value_or(0));
    rule.invert = r.opt_bool("invert").value_or(false);
    rule.action = r.opt_string("action").value_or("lookup");
    static const char* kActions[] = {"lookup",    "goto",        "nop",
                                     "blackhole", "unreachable", "prohibit"};
    if (std::find(std::begin(kActions), std::end(kActions), rule.action) == std::end(kActions))
      compat::throw_at(r.get("action"), source, r.field("action"),
                       "unknown rule action '" + rule.action +
                           "' (expected lookup, goto, nop, blackhole, unreachable or prohibit)");
    rule.table = static_cast<int>(r.opt_int("table", 0, 0x7fffffffLL).value_or(0));
    rule.goto_priority = static_cast<int>(r.opt_int("goto", 0, 0x7fffffffLL).value_or(0));
    rule.suppress_prefixlen =
        static_cast<int>(r.opt_int("suppress_prefixlen", 0, 128).value_or(-1));
    rule.unmodelled = r.opt_string("unmodelled").value_or("");
    r.finish();
    s.rules.push_back(rule);
  }
  YAML::Node conf = m.get("ipv4_conf");
  if (conf.IsDefined() && !conf.IsNull() && !conf.IsMap())
    compat::throw_at(conf, source, m.field("ipv4_conf"), "expected a map of interface: settings");
  for (auto it = conf.begin(); conf.IsMap() && it != conf.end(); ++it) {
    std::string name = it->first.Scalar();
    compat::YamlMap c(it->second, source, m.field("ipv4_conf") + "." + name);
    Ipv4Conf v;
    if (auto x = c.opt_int("rp_filter", 0, 2)) v.rp_filter = static_cast<int>(*x);
    if (auto x = c.opt_int("arp_ignore", 0, 8)) v.arp_ignore = static_cast<int>(*x);
    if (auto x = c.opt_int("arp_announce", 0, 2)) v.arp_announce = static_cast<int>(*x);
    c.finish();
    s.ipv4_conf[name] = v;
  }
  m.finish();
  return s;
}

}  // namespace hn::stack::netplane
