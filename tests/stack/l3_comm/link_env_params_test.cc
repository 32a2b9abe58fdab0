// The environment -> LinkParams mapping (link_env_params.h), table-driven:
// every variable of the contract, both limits and which one wins, the
// precedence of the command line and of the binding variables, malformed
// values (InputError naming the variable) and bindings that name nothing on
// this node (LinkError kNoInterface, never a fallback).

#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "compat/input_error.h"
#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/link_env_params.h"

using namespace hn::stack::comm;
using namespace std::chrono_literals;
using hn::compat::NicCandidate;

namespace {

// A node with a management, a parameter and an RDMA-style NIC, docker, lo,
// and a NIC without an address.
std::vector<NicCandidate> node_nics() {
  return {{"lo", 1, true, {"127.0.0.1", "::1"}},       {"eth0", 2, true, {"10.30.0.1"}},
          {"eth1", 3, true, {"10.10.0.1", "fd00::1"}}, {"eth2", 4, true, {}},
          {"docker0", 5, true, {"172.17.0.1"}},        {"ib0", 6, true, {"192.168.1.1"}}};
}

struct BudgetCase {
  const char* name;
  EnvMap env;
  std::optional<std::chrono::milliseconds> cli_timeout;
  long long budget_ms;
  int retry_count;  // -1: no attempt limit
  long long sleep_ms;
  const char* budget_source;  // substring
};

struct BindCase {
  const char* name;
  EnvMap env;
  LinkOverrides cli;
  const char* address;
  const char* interface;
  int family;
  const char* source;  // substring; "" = no binding
};

}  // namespace

TEST_CASE("link params: budget, attempts and back-off from the contract's variables") {
  const BudgetCase cases[] = {
      {"nothing set: the defaults", {}, {}, 60000, 34, 100, "default"},
      {"HCCL_CONNECT_TIMEOUT: T + 20 s, no attempt limit",
       {{"HCCL_CONNECT_TIMEOUT", "120"}},
       {},
       140000,
       -1,
       100,
       "HCCL_CONNECT_TIMEOUT=120 + 20 s"},
      {"HCCL_CONNECT_TIMEOUT below HCCL's range (tests use it): 1 + 20 s",
       {{"HCCL_CONNECT_TIMEOUT", "1"}},
       {},
       21000,
       -1,
       100,
       "HCCL_CONNECT_TIMEOUT=1 + 20 s"},
      {"HCCL_CONNECT_TIMEOUT fractional",
       {{"HCCL_CONNECT_TIMEOUT", "1.5"}},
       {},
       21500,
       -1,
       100,
       "+ 20 s"},
      {"NCCL retries: N(N+1)/2 * S, N+1 attempts",
       {{"NCCL_SOCKET_RETRY_CNT", "4"}, {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "250"}},
       {},
       2500,
       4,
       250,
       "NCCL_SOCKET_RETRY_CNT=4 x NCCL_SOCKET_RETRY_SLEEP_MSEC=250"},
      {"NCCL count alone: 100 ms steps",
       {{"NCCL_SOCKET_RETRY_CNT", "34"}},
       {},
       59500,
       34,
       100,
       "NCCL_SOCKET_RETRY_SLEEP_MSEC=100 (default)"},
      {"NCCL sleep alone: only the step changes",
       {{"NCCL_SOCKET_RETRY_SLEEP_MSEC", "50"}},
       {},
       60000,
       34,
       50,
       "default"},
      {"both: the NCCL schedule is shorter and wins",
       {{"HCCL_CONNECT_TIMEOUT", "120"},
        {"NCCL_SOCKET_RETRY_CNT", "4"},
        {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "250"}},
       {},
       2500,
       4,
       250,
       "NCCL_SOCKET_RETRY_CNT=4"},
      {"both: HCCL's budget is shorter and wins, the attempt limit stays",
       {{"HCCL_CONNECT_TIMEOUT", "1"},
        {"NCCL_SOCKET_RETRY_CNT", "20"},
        {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "1400"}},
       {},
       21000,
       20,
       1400,
       "HCCL_CONNECT_TIMEOUT=1 + 20 s"},
      {"--timeout beats HCCL_CONNECT_TIMEOUT",
       {{"HCCL_CONNECT_TIMEOUT", "120"}},
       5000ms,
       5000,
       -1,
       100,
       "--timeout"},
      {"--timeout beats the NCCL budget, the attempt limit stays",
       {{"NCCL_SOCKET_RETRY_CNT", "4"}, {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "250"}},
       7000ms,
       7000,
       4,
       250,
       "--timeout"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    LinkOverrides cli;
    cli.connect_timeout = c.cli_timeout;
    LinkParams p = link_params_from_env(c.env, node_nics(), cli);
    CHECK(p.connect_timeout.count() == c.budget_ms);
    CHECK(p.retry_count == c.retry_count);
    CHECK(p.max_attempts() == (c.retry_count < 0 ? -1 : c.retry_count + 1));
    CHECK(p.retry_sleep.count() == c.sleep_ms);
    CHECK_THAT(p.budget_source, Catch::Contains(c.budget_source));
    CHECK(p.bind_address.empty());
    CHECK(p.bind_interface.empty());
  }
}

TEST_CASE("link params: the command's own defaults apply when nothing overrides them") {
  LinkParams d;
  d.connect_timeout = 9000ms;
  d.plane = "param";
  LinkParams p = link_params_from_env({}, node_nics(), {}, d);
  CHECK(p.connect_timeout == 9000ms);
  CHECK(p.plane == "param");
  CHECK(p.retry_count == 34);
}

TEST_CASE("link params: binding from HCCL_IF_IP, the interface specs and the command line") {
  LinkOverrides none;
  LinkOverrides cli_nic;
  cli_nic.bind_interface = "eth0";
  LinkOverrides cli_ip;
  cli_ip.bind_address = "10.10.0.1";
  const BindCase cases[] = {
      {"nothing: no binding", {}, none, "", "", AF_UNSPEC, ""},
      {"HCCL_IF_IP binds the address",
       {{"HCCL_IF_IP", "10.10.0.1"}},
       none,
       "10.10.0.1",
       "",
       AF_INET,
       "HCCL_IF_IP=10.10.0.1 (on eth1)"},
      {"HCCL_IF_IP (IPv6)",
       {{"HCCL_IF_IP", "fd00::1"}},
       none,
       "fd00::1",
       "",
       AF_INET6,
       "HCCL_IF_IP"},
      {"HCCL_IF_IP outranks HCCL_SOCKET_IFNAME",
       {{"HCCL_IF_IP", "10.10.0.1"}, {"HCCL_SOCKET_IFNAME", "eth0"}},
       none,
       "10.10.0.1",
       "",
       AF_INET,
       "HCCL_IF_IP"},
      {"HCCL exact name",
       {{"HCCL_SOCKET_IFNAME", "=eth1"}},
       none,
       "10.10.0.1",
       "eth1",
       AF_UNSPEC,
       "HCCL_SOCKET_IFNAME==eth1 (first match: eth1)"},
      {"HCCL prefix: first match by name, NICs without an address skipped",
       {{"HCCL_SOCKET_IFNAME", "eth"}},
       none,
       "10.30.0.1",
       "eth0",
       AF_UNSPEC,
       "first match: eth0"},
      {"HCCL exclude: others by name before docker and lo",
       {{"HCCL_SOCKET_IFNAME", "^eth"}},
       none,
       "192.168.1.1",
       "ib0",
       AF_UNSPEC,
       "first match: ib0"},
      {"HCCL exact exclude",
       {{"HCCL_SOCKET_IFNAME", "^=eth0,ib0"}},
       none,
       "10.10.0.1",
       "eth1",
       AF_UNSPEC,
       "first match: eth1"},
      {"HCCL_SOCKET_IFNAME outranks NCCL_SOCKET_IFNAME",
       {{"HCCL_SOCKET_IFNAME", "eth1"}, {"NCCL_SOCKET_IFNAME", "eth0"}},
       none,
       "10.10.0.1",
       "eth1",
       AF_UNSPEC,
       "HCCL_SOCKET_IFNAME"},
      {"NCCL ^docker,lo: every match, the first by name is bound",
       {{"NCCL_SOCKET_IFNAME", "^docker,lo"}},
       none,
       "10.30.0.1",
       "eth0",
       AF_UNSPEC,
       "NCCL_SOCKET_IFNAME=^docker,lo (first match: eth0)"},
      {"NCCL prefix list",
       {{"NCCL_SOCKET_IFNAME", "ib,eth1"}},
       none,
       "10.10.0.1",
       "eth1",
       AF_UNSPEC,
       "first match: eth1"},
      {"NCCL with a port item",
       {{"NCCL_SOCKET_IFNAME", "=ib0:1"}},
       none,
       "192.168.1.1",
       "ib0",
       AF_UNSPEC,
       "first match: ib0"},
      {"NCCL one-character value counts as unset",
       {{"NCCL_SOCKET_IFNAME", "e"}},
       none,
       "",
       "",
       AF_UNSPEC,
       ""},
      {"NCCL family AF_INET6 picks the IPv6 address",
       {{"NCCL_SOCKET_IFNAME", "=eth1"}, {"NCCL_SOCKET_FAMILY", "AF_INET6"}},
       none,
       "fd00::1",
       "eth1",
       AF_INET6,
       "first match: eth1"},
      {"HCCL family wins over NCCL's",
       {{"HCCL_SOCKET_IFNAME", "=eth1"},
        {"HCCL_SOCKET_FAMILY", "AF_INET"},
        {"NCCL_SOCKET_FAMILY", "AF_INET6"}},
       none,
       "10.10.0.1",
       "eth1",
       AF_INET,
       "HCCL_SOCKET_IFNAME"},
      {"--bind-interface replaces the environment's binding",
       {{"HCCL_IF_IP", "10.10.0.1"}},
       cli_nic,
       "10.30.0.1",
       "eth0",
       AF_UNSPEC,
       "--bind-interface eth0"},
      {"--bind-address replaces it too",
       {{"NCCL_SOCKET_IFNAME", "eth0"}},
       cli_ip,
       "10.10.0.1",
       "",
       AF_INET,
       "--bind-address 10.10.0.1"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    LinkParams p = link_params_from_env(c.env, node_nics(), c.cli);
    CHECK(p.bind_address == c.address);
    CHECK(p.bind_interface == c.interface);
    CHECK(p.family == c.family);
    if (*c.source)
      CHECK_THAT(p.bind_source, Catch::Contains(c.source));
    else
      CHECK(p.bind_source.empty());
  }
}

TEST_CASE("link params: malformed values are input errors naming the variable") {
  const std::pair<EnvMap, const char*> cases[] = {
      {{{"HCCL_CONNECT_TIMEOUT", "abc"}}, "HCCL_CONNECT_TIMEOUT"},
      {{{"HCCL_CONNECT_TIMEOUT", "0"}}, "HCCL_CONNECT_TIMEOUT"},
      {{{"HCCL_CONNECT_TIMEOUT", "-5"}}, "HCCL_CONNECT_TIMEOUT"},
      {{{"HCCL_CONNECT_TIMEOUT", "120s"}}, "HCCL_CONNECT_TIMEOUT"},
      {{{"NCCL_SOCKET_RETRY_CNT", "x"}}, "NCCL_SOCKET_RETRY_CNT"},
      {{{"NCCL_SOCKET_RETRY_CNT", "0"}}, "NCCL_SOCKET_RETRY_CNT"},
      {{{"NCCL_SOCKET_RETRY_SLEEP_MSEC", "1.5"}}, "NCCL_SOCKET_RETRY_SLEEP_MSEC"},
      {{{"HCCL_SOCKET_IFNAME", ""}}, "HCCL_SOCKET_IFNAME"},
      {{{"NCCL_SOCKET_IFNAME", "^"}}, "NCCL_SOCKET_IFNAME"},
      {{{"HCCL_SOCKET_FAMILY", "AF_UNIX"}}, "HCCL_SOCKET_FAMILY"},
      {{{"HCCL_IF_IP", ""}}, "HCCL_IF_IP"},
      {{{"HCCL_IF_IP", "10.10.0"}}, "HCCL_IF_IP"},
      {{{"HCCL_IF_IP", "10.10.0.1"}, {"HCCL_SOCKET_FAMILY", "AF_INET6"}}, "HCCL_IF_IP"},
  };
  for (const auto& [env, field] : cases) {
    INFO(field << "=" << env.begin()->second);
    try {
      link_params_from_env(env, node_nics());
      FAIL("accepted");
    } catch (const hn::compat::InputError& e) {
      CHECK(e.field() == field);
      CHECK(e.file() == "environment");
    }
  }
  LinkOverrides cli;
  cli.bind_address = "not-an-ip";
  CHECK_THROWS_AS(link_params_from_env({}, node_nics(), cli), hn::compat::InputError);
}

TEST_CASE("link params: a binding that names nothing here is a classified error, no fallback") {
  LinkOverrides nic9;
  nic9.bind_interface = "eth9";
  LinkOverrides far_ip;
  far_ip.bind_address = "10.99.9.9";
  LinkOverrides mismatch;
  mismatch.bind_address = "10.10.0.1";
  mismatch.bind_interface = "eth0";
  LinkOverrides no_addr;
  no_addr.bind_interface = "eth2";
  const std::tuple<const char*, EnvMap, LinkOverrides, const char*> cases[] = {
      {"HCCL exact name absent", {{"HCCL_SOCKET_IFNAME", "=eth9"}}, {}, "=eth9"},
      {"HCCL prefix matches nothing", {{"HCCL_SOCKET_IFNAME", "mlx"}}, {}, "matches no interface"},
      {"HCCL matches only a NIC without an address",
       {{"HCCL_SOCKET_IFNAME", "=eth2"}},
       {},
       "HCCL_SOCKET_IFNAME==eth2"},
      {"HCCL IPv6 only, the NIC has IPv4 only",
       {{"HCCL_SOCKET_IFNAME", "=eth0"}, {"HCCL_SOCKET_FAMILY", "AF_INET6"}},
       {},
       "=eth0"},
      {"NCCL matches nothing", {{"NCCL_SOCKET_IFNAME", "=mlx5_0"}}, {}, "NCCL_SOCKET_IFNAME"},
      {"NCCL excludes everything", {{"NCCL_SOCKET_IFNAME", "^eth,ib,docker,lo"}}, {}, "matches no"},
      {"HCCL_IF_IP not on this node", {{"HCCL_IF_IP", "10.10.0.9"}}, {}, "no interface holds"},
      {"--bind-interface absent", {}, nic9, "no such NIC"},
      {"--bind-interface without an address", {}, no_addr, "no usable address"},
      {"--bind-address not on this node", {}, far_ip, "no local NIC holds it"},
      {"--bind-address on another NIC than --bind-interface", {}, mismatch, "is on eth1"},
  };
  for (const auto& [name, env, cli, text] : cases) {
    INFO(name);
    try {
      link_params_from_env(env, node_nics(), cli);
      FAIL("resolved");
    } catch (const LinkError& e) {
      CHECK(e.kind() == LinkError::Kind::kNoInterface);
      std::string m = e.what();
      CHECK_THAT(m, Catch::Contains(text));
      CHECK_THAT(m, Catch::Contains("no interface"));
      CHECK_THAT(m, Catch::Contains("this node has: docker0 172.17.0.1, eth0 10.30.0.1"));
    }
  }
}

TEST_CASE("link params: environment_map reads KEY=value entries") {
  char a[] = "HCCL_CONNECT_TIMEOUT=300";
  char b[] = "EMPTY=";
  char c[] = "NOEQUALS";
  char d[] = "X=a=b";
  char* envp[] = {a, b, c, d, nullptr};
  EnvMap m = environment_map(envp);
  CHECK(m.size() == 3);
  CHECK(m["HCCL_CONNECT_TIMEOUT"] == "300");
  CHECK(m["EMPTY"].empty());
  CHECK(m["X"] == "a=b");
}
