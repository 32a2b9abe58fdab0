// Every form of the interface-selection grammars (docs/comm-sources.md A2, A7),
// table-driven over one NIC set whose expected selections are written out.
#include "compat/ifname_grammar.h"

#include <catch2/catch.hpp>

using namespace hn::compat;
using Names = std::vector<std::string>;

namespace {

// index order: lo 1, eth0 2, eth1 3, eth10 4, ib0 5, docker0 6, enp1s0 7 (IPv6
// only), eth2 8 (down). Listed out of index order on purpose.
std::vector<NicCandidate> nics() {
  return {
      {"eth2", 8, false, {"10.20.0.1"}},     {"eth1", 3, true, {"10.10.0.1"}},
      {"lo", 1, true, {"127.0.0.1", "::1"}}, {"eth0", 2, true, {"10.30.0.1"}},
      {"eth10", 4, true, {"10.11.0.1"}},     {"ib0", 5, true, {"10.40.0.1"}},
      {"docker0", 6, true, {"172.17.0.1"}},  {"enp1s0", 7, true, {"fd00::1"}},
  };
}

std::vector<NicCandidate> without(const std::string& name) {
  auto v = nics();
  std::erase_if(v, [&](const NicCandidate& n) { return n.name.rfind(name, 0) == 0; });
  return v;
}

struct Case {
  std::optional<std::string> value;
  Names expected;  // empty: error expected
  bool automatic = false;
};

}  // namespace

TEST_CASE("parse_if_list: ^, =, ^=, ports and empty items") {
  IfList l = parse_if_list("^=eth0:1,,ib:2:0:1,");
  CHECK(l.exclude);
  CHECK(l.exact);
  CHECK(l.items == std::vector<IfListItem>{{"eth0", 1}, {"ib", 2}});
  l = parse_if_list("=^eth0");  // '^' must come first; here it is part of the name
  CHECK_FALSE(l.exclude);
  CHECK(l.exact);
  CHECK(l.items.front().name == "^eth0");
  CHECK(parse_if_list("").items.empty());
  CHECK(if_list_selects(parse_if_list(""), "anything"));
}

TEST_CASE("NCCL_SOCKET_IFNAME: prefixes, exclusions, exact names, every match") {
  const std::vector<Case> cases = {
      {"eth", {"eth0", "eth1", "eth10", "eth2"}},    // prefix; ifindex order; down NICs count
      {"eth1", {"eth1", "eth10"}},                   // prefix, not a name
      {"=eth1", {"eth1"}},                           // exact
      {"=eth1,eth0", {"eth0", "eth1"}},              // NIC order, not list order
      {"^eth", {"lo", "ib0", "docker0", "enp1s0"}},  // IPv6-only NICs come last
      {"^=eth1", {"lo", "eth0", "eth10", "ib0", "docker0", "eth2", "enp1s0"}},
      {"eth0,ib", {"eth0", "ib0"}},
      {"eth1:1", {"eth1", "eth10"}},   // a port is ignored for sockets
      {"eth0,,ib,", {"eth0", "ib0"}},  // empty items are dropped
      {" eth1", {}},                   // no trimming: matches nothing
      {"=eth", {}},                    // exact: no NIC is called eth
      {"enp", {"enp1s0"}},
      {std::nullopt, {"ib0"}, true},  // auto: ib first
      {"e", {"ib0"}, true},           // one character counts as unset
  };
  for (const auto& c : cases) {
    CAPTURE(c.value.value_or("(unset)"));
    IfSelection s = resolve_nccl_socket_ifname(c.value, nics());
    CHECK(s.nics == c.expected);
    CHECK(s.used() == c.expected);  // NCCL may use all of them
    CHECK(s.error.empty() == !c.expected.empty());
    CHECK(s.automatic == c.automatic);
    CHECK_FALSE(s.first_only);
  }
}

TEST_CASE("NCCL_SOCKET_IFNAME automatic choice: ib, then not docker/lo, then docker, then lo") {
  CHECK(resolve_nccl_socket_ifname(std::nullopt, without("ib")).nics ==
        Names{"eth0", "eth1", "eth10", "eth2", "enp1s0"});
  std::vector<NicCandidate> only_docker_lo = {{"lo", 1, true, {"127.0.0.1"}},
                                              {"docker0", 2, true, {"172.17.0.1"}}};
  CHECK(resolve_nccl_socket_ifname(std::nullopt, only_docker_lo).nics == Names{"docker0"});
  CHECK(resolve_nccl_socket_ifname(std::nullopt, {{"lo", 1, true, {"127.0.0.1"}}}).nics ==
        Names{"lo"});
  CHECK_FALSE(resolve_nccl_socket_ifname(std::nullopt, {}).error.empty());
  // NCCL_SOCKET_FAMILY=AF_INET drops IPv6-only NICs; AF_INET6 keeps only them (and lo's ::1).
  CHECK(resolve_nccl_socket_ifname("enp", nics(), 4).nics.empty());
  CHECK(resolve_nccl_socket_ifname("^eth", nics(), 6).nics == Names{"lo", "enp1s0"});
  CHECK(socket_family_from("AF_INET") == 4);
  CHECK(socket_family_from("AF_INET6") == 6);
  CHECK(socket_family_from("") == 0);
}

TEST_CASE("HCCL_SOCKET_IFNAME: same forms, FIRST match in HCCL's order") {
  const std::vector<Case> cases = {
      // HCCL's order: other NICs by name, then docker*, then lo; IPv4 only by default.
      {std::nullopt, {"eth0", "eth1", "eth10", "eth2", "ib0", "docker0", "lo"}, true},
      {"", {"eth0", "eth1", "eth10", "eth2", "ib0", "docker0", "lo"}, true},
      {"eth1", {"eth1", "eth10"}},
      {"=eth10,eth1", {"eth1", "eth10"}},
      {"^eth", {"ib0", "docker0", "lo"}},
      {"^=eth0", {"eth1", "eth10", "eth2", "ib0", "docker0", "lo"}},
      {"^eth,ib,docker", {"lo"}},  // everything real excluded: lo
      {"=bond0", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.value.value_or("(unset)"));
    IfSelection s = resolve_hccl_socket_ifname(c.value, nics());
    CHECK(s.nics == c.expected);
    CHECK(s.first_only);
    CHECK(s.automatic == c.automatic);
    CHECK(s.error.empty() == !c.expected.empty());
    if (!c.expected.empty()) CHECK(s.used() == Names{c.expected.front()});
  }
  CHECK(resolve_hccl_socket_ifname("enp", nics(), 6).nics == Names{"enp1s0"});
}

TEST_CASE("HCCL_IF_IP: the NIC holding the address") {
  CHECK(resolve_hccl_if_ip("10.10.0.1", nics()).used() == Names{"eth1"});
  CHECK(resolve_hccl_if_ip("fd00::1", nics()).used() == Names{"enp1s0"});
  CHECK(resolve_hccl_if_ip("fd00:0::1", nics()).used() == Names{"enp1s0"});  // same address
  CHECK_THAT(resolve_hccl_if_ip("10.99.0.1", nics()).error, Catch::Contains("no interface holds"));
  CHECK_THAT(resolve_hccl_if_ip("eth1", nics()).error, Catch::Contains("not an IPv4 or IPv6"));
}

TEST_CASE("GLOO_SOCKET_IFNAME: exact names, every one used, unknown fails") {
  const std::vector<Case> cases = {
      {"eth1", {"eth1"}}, {"eth1,eth0", {"eth1", "eth0"}},  // list order: round-robin over devices
      {"eth", {}},                                          // not a prefix
      {"eth2", {}},                                         // down
      {"eth1,bond0", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(*c.value);
    IfSelection s = resolve_gloo_socket_ifname(c.value, nics());
    CHECK(s.nics == c.expected);
    CHECK(s.error.empty() == !c.expected.empty());
  }
  CHECK_THAT(resolve_gloo_socket_ifname("eth", nics()).error,
             Catch::Equals("Unable to find address for: eth"));
  IfSelection unset = resolve_gloo_socket_ifname(std::nullopt, nics());
  CHECK(unset.automatic);
  CHECK(unset.nics.empty());
  CHECK(unset.error.empty());
}

TEST_CASE("Open MPI btl_tcp_if_include/exclude: names, CIDR, lo, exclusivity") {
  struct OmpiCase {
    std::optional<std::string> include, exclude;
    Names expected;
  };
  const std::vector<OmpiCase> cases = {
      {"eth1", std::nullopt, {"eth1"}},
      {"eth", std::nullopt, {}},                                       // names are exact
      {"10.10.0.0/24", std::nullopt, {"eth1"}},                        // CIDR
      {"10.0.0.0/8", std::nullopt, {"eth0", "eth1", "eth10", "ib0"}},  // eth2 is down
      {"eth0,10.10.0.0/16", std::nullopt, {"eth0", "eth1"}},
      {std::nullopt, "lo,eth0", {"eth1", "eth10", "ib0", "docker0"}},
      {std::nullopt, "eth0", {"lo", "eth1", "eth10", "ib0", "docker0"}},  // lo is used again
      {std::nullopt, "127.0.0.1/8,10.0.0.0/8", {"docker0"}},
      {std::nullopt, std::nullopt, {"eth0", "eth1", "eth10", "ib0", "docker0"}},  // default
      {"eth1", "lo", {}},  // mutually exclusive
      {"bond0", std::nullopt, {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.include.value_or("-"), c.exclude.value_or("-"));
    IfSelection s = resolve_ompi_btl_tcp_if(c.include, c.exclude, nics());
    CHECK(s.nics == c.expected);
    CHECK(s.error.empty() == !c.expected.empty());
  }
  CHECK_THAT(resolve_ompi_btl_tcp_if("eth1", "lo", nics()).error,
             Catch::Contains("mutually exclusive"));
  IfSelection skipped = resolve_ompi_btl_tcp_if("bond0,eth1", std::nullopt, nics());
  CHECK(skipped.nics == Names{"eth1"});
  REQUIRE(skipped.notes.size() == 1);
  CHECK_THAT(skipped.notes[0], Catch::Contains("bond0"));
}

TEST_CASE("cidr_contains") {
  CHECK(cidr_contains("10.0.0.0/8", "10.255.1.2"));
  CHECK_FALSE(cidr_contains("10.0.0.0/8", "11.0.0.1"));
  CHECK(cidr_contains("10.10.0.1", "10.10.0.1"));
  CHECK(cidr_contains("0.0.0.0/0", "192.0.2.1"));
  CHECK(cidr_contains("fd00::/8", "fd00::1"));
  CHECK_FALSE(cidr_contains("fd00::/8", "10.0.0.1"));
  CHECK_FALSE(cidr_contains("10.0.0.0/33", "10.0.0.1"));
  CHECK_FALSE(cidr_contains("10.0.0.0/x", "10.0.0.1"));
  CHECK_FALSE(cidr_contains("bogus/8", "10.0.0.1"));
}
