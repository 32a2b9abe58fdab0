#pragma once
// Builds a NodeContext for L6 probe unit tests from a profile text and
// hand-made readings, and finds findings in the result.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "probes/node_context.h"
#include "reports/finding.h"
#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/source.h"

namespace hn::test {

inline stack::physical::Link up_link(const std::string& name, int ifindex, int mtu = 1500) {
  stack::physical::Link l;
  l.name = name;
  l.ifindex = ifindex;
  l.mtu = mtu;
  l.admin_up = l.carrier = true;
  l.oper_state = "up";
  return l;
}

inline stack::netplane::InterfaceAddress addr(const std::string& nic, const std::string& ip,
                                              int len = 24) {
  return {nic, ip, len, ip.find(':') == std::string::npos ? 4 : 6, "global"};
}

inline stack::netplane::Route connected(const std::string& dst, const std::string& nic,
                                        const std::string& src) {
  return {254, dst, "", nic, src, 0, 4, "unicast", "kernel"};
}

struct NetFixture {
  std::string profile_yaml;
  stack::physical::Inventory inv;
  stack::netplane::NetState net;
  probes::CommEnv env;
  std::string node = "node0";

  probes::NodeContext context() const {
    probes::NodeContext ctx;
    ctx.profile =
        std::make_shared<formats::Profile>(formats::parse_profile(profile_yaml, "p.yaml"));
    ctx.sources.physical = stack::physical::make_snapshot_source(inv);
    ctx.sources.netplane = stack::netplane::make_snapshot_netplane_source(net);
    ctx.sources.hostname = node;
    ctx.sources.live = false;
    ctx.node = probes::identify_node(*ctx.profile, node);
    ctx.env = env;
    return ctx;
  }
};

inline std::vector<reports::Finding> with_code(const std::vector<reports::Finding>& fs,
                                               const std::string& code) {
  std::vector<reports::Finding> v;
  for (const auto& f : fs)
    if (f.code == code) v.push_back(f);
  return v;
}

inline const reports::Finding& one(const std::vector<reports::Finding>& fs, const std::string& code,
                                   const std::string& entity) {
  const reports::Finding* hit = nullptr;
  int n = 0;
  for (const auto& f : fs)
    if (f.code == code && f.entity == entity) {
      hit = &f;
      ++n;
    }
  std::string all;
  for (const auto& f : fs)
    all += std::string(reports::to_string(f.status)) + " " + f.code + " " + f.entity + ": " +
           f.message + "\n";
  INFO(code << " for " << entity << " among:\n" << all);
  REQUIRE(n == 1);
  return *hit;
}

// The one finding with this code whose evidence[key] is value.
inline const reports::Finding& one_where(const std::vector<reports::Finding>& fs,
                                         const std::string& code, const std::string& key,
                                         const std::string& value) {
  const reports::Finding* hit = nullptr;
  int n = 0;
  for (const auto& f : fs) {
    auto it = f.evidence.find(key);
    if (f.code == code && it != f.evidence.end() && it->second == value) {
      hit = &f;
      ++n;
    }
  }
  INFO(code << " with " << key << "=" << value);
  REQUIRE(n == 1);
  return *hit;
}

}  // namespace hn::test
