// The parameter plane, PFC priority and port range the translator sees.
#include "probes/translate_context.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/support/temp_dir.h"

using namespace hn::probes;
using namespace hn::formats;
using hn::compat::InputError;

namespace {
Profile profile(const std::string& planes, const std::string& nodes = "",
                const std::string& comm = "") {
  return parse_profile("version: 1\n" + nodes + "planes:\n" + planes + comm, "c.yaml");
}
const char* kPlanes =
    "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n"
    "  - {name: param0, type: parameter, subnet: 10.10.0.0/24, nic: ens1f0}\n"
    "  - {name: param1, type: parameter, subnet: 10.11.0.0/24, nic: 'ens2f*'}\n";
}  // namespace

TEST_CASE("translate context: the first parameter plane, its one NIC") {
  auto pp = resolve_param_plane(profile(kPlanes), "", "");
  CHECK(pp.plane == "param0");
  CHECK(pp.nic_exact == "ens1f0");
  CHECK(pp.unresolved.empty());
  CHECK(pp.contains_ip("10.10.0.9"));
  CHECK_FALSE(pp.contains_ip("10.30.0.9"));
  CHECK_FALSE(pp.contains_ip("not-an-ip"));
}

TEST_CASE("translate context: --plane, globs, auto and per-node NICs") {
  auto pp = resolve_param_plane(profile(kPlanes), "", "param1");
  CHECK(pp.nic_prefix == "ens2f");
  CHECK(pp.nic_exact.empty());
  pp = resolve_param_plane(profile("  - {name: p, type: parameter, nic: 'eth[01]'}\n"), "", "");
  CHECK_THAT(pp.unresolved, Catch::Contains("the glob 'eth[01]'"));
  pp = resolve_param_plane(profile("  - {name: p, type: parameter, nic: auto}\n"), "", "");
  CHECK_THAT(pp.unresolved, Catch::Contains("'auto'"));
  pp = resolve_param_plane(profile("  - {name: p, type: parameter, subnet: 10.0.0.0/8}\n"), "", "");
  CHECK_THAT(pp.unresolved, Catch::Contains("names no NIC"));
  pp = resolve_param_plane(profile("  - {name: m, type: management, nic: eth0}\n"), "", "");
  CHECK_THAT(pp.unresolved, Catch::Contains("no plane of type parameter"));

  const char* nodes =
      "nodes:\n"
      "  - {name: n0, addresses: {param0: 10.10.0.1}}\n"
      "  - {name: n1, addresses: {param0: 10.10.0.2}, nics: {param0: ens3f0}}\n";
  pp = resolve_param_plane(profile(kPlanes, nodes), "", "");
  CHECK_THAT(pp.unresolved, Catch::Contains("differs between nodes (n0 ens1f0, n1 ens3f0)"));
  pp = resolve_param_plane(profile(kPlanes, nodes), "n1", "");
  CHECK(pp.nic_exact == "ens3f0");
  CHECK(pp.node_ip == "10.10.0.2");
  pp = resolve_param_plane(profile(kPlanes, nodes), "n0", "");
  CHECK(pp.nic_exact == "ens1f0");
  CHECK(pp.node_ip == "10.10.0.1");
  const char* same = "nodes:\n  - {name: n0}\n  - {name: n1, nics: {param0: ens1f0}}\n";
  CHECK(resolve_param_plane(profile(kPlanes, same), "", "").nic_exact == "ens1f0");
}

TEST_CASE("translate context: an unknown --node or --plane is bad input") {
  CHECK_THROWS_WITH(resolve_param_plane(profile(kPlanes), "n9", ""),
                    Catch::Contains("--node: the profile c.yaml has no node 'n9'"));
  CHECK_THROWS_WITH(resolve_param_plane(profile(kPlanes), "", "nope"), Catch::Contains("--plane"));
}

TEST_CASE("translate context: PFC priority, port range given or read from procfs") {
  Profile p = profile(kPlanes, "", "comm: {library: hccl, pfc_priority: 3}\n");
  TranslateContextOptions o;
  o.local_port_range = "32768 60999";
  o.reserved_ports = "60000-60031";
  o.pg_timeout_s = 900;
  auto ctx = make_translate_context(&p, o);
  CHECK(ctx.pfc_priority == 3);
  REQUIRE(ctx.param);
  CHECK(ctx.profile_name == "c.yaml");
  CHECK(ctx.ephemeral->lo == 32768);
  CHECK(ctx.reserved.size() == 1);
  CHECK(ctx.pg_timeout_s == 900);

  auto none = make_translate_context(nullptr, o);
  CHECK_FALSE(none.param);
  CHECK_FALSE(none.pfc_priority);

  o.local_port_range = "60999";
  CHECK_THROWS_WITH(make_translate_context(nullptr, o), Catch::Contains("--local-port-range"));
  o.local_port_range = "";
  CHECK_THROWS_WITH(make_translate_context(nullptr, o),
                    Catch::Contains("--reserved-ports: needs --local-port-range"));

  hn::test::TempDir proc;
  o.reserved_ports = "";
  o.proc_root = proc.path();
  auto unknown = make_translate_context(nullptr, o);
  CHECK_FALSE(unknown.ephemeral);
  CHECK_THAT(unknown.ports_source, Catch::Contains("ip_local_port_range"));
  proc.write("sys/net/ipv4/ip_local_port_range", "40000 41000\n");
  auto live = make_translate_context(nullptr, o);
  REQUIRE(live.ephemeral);
  CHECK(live.ephemeral->hi == 41000);
  CHECK_THAT(live.ports_source, Catch::Contains("read from"));
}
