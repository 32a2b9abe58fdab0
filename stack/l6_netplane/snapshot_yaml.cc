#include "stack/l6_netplane/snapshot_yaml.h"

#include "compat/yaml_input.h"

namespace hn::stack::netplane {

namespace {

void put(YAML::Node& n, const char* key, const std::string& v) {
  if (!v.empty()) n[key] = v;
}

std::string item(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

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
  return root;
}

NetState net_state_from_yaml(const YAML::Node& node, const std::string& source,
                             const std::string& path) {
  compat::YamlMap m(node, source, path);
  NetState s;
  YAML::Node addrs = m.get("addresses");
  for (size_t i = 0; addrs.IsSequence() && i < addrs.size(); ++i) {
    compat::YamlMap a(addrs[i], source, item(m.field("addresses"), i));
    InterfaceAddress ia;
    ia.nic = a.req_string("nic");
    ia.address = a.req_string("address");
    ia.prefix_len = static_cast<int>(a.opt_int("prefix_len", 0, 128).value_or(0));
    ia.family = static_cast<int>(a.opt_int("family", 4, 6).value_or(4));
    ia.scope = a.opt_string("scope").value_or("");
    a.finish();
    s.addresses.push_back(ia);
  }
  YAML::Node routes = m.get("routes");
  for (size_t i = 0; routes.IsSequence() && i < routes.size(); ++i) {
    compat::YamlMap r(routes[i], source, item(m.field("routes"), i));
    Route rt;
    rt.table = static_cast<int>(r.opt_int("table", 0, 0x7fffffffLL).value_or(254));
    rt.dst = r.req_string("dst");
    rt.gateway = r.opt_string("gateway").value_or("");
    rt.oif = r.opt_string("oif").value_or("");
    rt.prefsrc = r.opt_string("prefsrc").value_or("");
    rt.metric = static_cast<int>(r.opt_int("metric", 0, 0x7fffffffLL).value_or(0));
    rt.family = static_cast<int>(r.opt_int("family", 4, 6).value_or(4));
    rt.type = r.opt_string("type").value_or("");
    rt.protocol = r.opt_string("protocol").value_or("");
    r.finish();
    s.routes.push_back(rt);
  }
  m.finish();
  return s;
}

}  // namespace hn::stack::netplane
