// The link-setup contract with the comm layer: parsing, the budget and retry
// semantics, and that what the translator writes reads back as the same budget.
#include "compat/translate/link_env.h"

#include <catch2/catch.hpp>

#include "compat/translate/shell_input.h"
#include "compat/translate/translator.h"

using namespace hn::compat::translate;

namespace {
std::map<std::string, std::string> translated_env(const std::string& script,
                                                  const std::string& from, const std::string& to,
                                                  const Context& ctx = {}) {
  RuleBook book = RuleBook::load();
  Translation t = translate(parse_shell_text(script, "job.sh", ShellMode::kScript),
                            book.for_translation(from, to), book, ctx);
  std::map<std::string, std::string> env;
  for (const auto& l : t.env) env[l.name] = l.value;
  return env;
}
}  // namespace

TEST_CASE("link env: nothing set leaves every limit to the comm layer's defaults") {
  LinkEnv l = link_env_from({{"PATH", "/bin"}});
  CHECK_FALSE(l.connect_timeout_s);
  CHECK_FALSE(l.retry_count);
  CHECK_FALSE(l.link_deadline_s());
  CHECK_FALSE(l.max_attempts());
  CHECK(l.ifname_spec.empty());
  CHECK(l.ifname_var.empty());
}

TEST_CASE("link env: HCCL's budget is the value plus 20 s") {
  LinkEnv l = link_env_from({{"HCCL_CONNECT_TIMEOUT", "120"}});
  CHECK(*l.connect_timeout_s == 120);
  CHECK(*l.link_deadline_s() == Approx(140));
  CHECK_FALSE(l.max_attempts());
  CHECK(*link_env_from({{"HCCL_CONNECT_TIMEOUT", "1.5"}}).link_deadline_s() == Approx(21.5));
}

TEST_CASE("link env: NCCL's retries back off linearly") {
  LinkEnv l =
      link_env_from({{"NCCL_SOCKET_RETRY_CNT", "3"}, {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "100"}});
  CHECK(*l.max_attempts() == 4);
  CHECK(l.sleep_after_attempt_ms(1) == 100);
  CHECK(l.sleep_after_attempt_ms(3) == 300);
  CHECK(*l.link_deadline_s() == Approx(0.6));
  CHECK(*link_env_from({{"NCCL_SOCKET_RETRY_CNT", "34"}}).link_deadline_s() == Approx(59.5));
  // Both limits: whichever comes first.
  LinkEnv both = link_env_from({{"NCCL_SOCKET_RETRY_CNT", "34"}, {"HCCL_CONNECT_TIMEOUT", "10"}});
  CHECK(*both.link_deadline_s() == Approx(30));
  CHECK(*both.max_attempts() == 35);
}

TEST_CASE("link env: interface in HCCL's priority order") {
  LinkEnv l = link_env_from({{"NCCL_SOCKET_IFNAME", "^docker,lo"},
                             {"HCCL_SOCKET_IFNAME", "=ens1f0"},
                             {"HCCL_IF_IP", "10.10.0.1"},
                             {"NCCL_SOCKET_FAMILY", "AF_INET6"},
                             {"HCCL_SOCKET_FAMILY", "AF_INET"}});
  CHECK(l.if_ip == "10.10.0.1");
  CHECK(l.ifname_spec == "=ens1f0");
  CHECK(l.ifname_var == "HCCL_SOCKET_IFNAME");
  CHECK(l.socket_family == "AF_INET");
  LinkEnv n = link_env_from({{"NCCL_SOCKET_IFNAME", "^docker,lo"}});
  CHECK(n.ifname_spec == "^docker,lo");
  CHECK(n.ifname_var == "NCCL_SOCKET_IFNAME");
}

TEST_CASE("link env: malformed values are InputErrors naming the variable") {
  struct Bad {
    const char* name;
    const char* value;
  };
  for (const Bad& b :
       {Bad{"HCCL_CONNECT_TIMEOUT", "0"}, Bad{"HCCL_CONNECT_TIMEOUT", "2m"},
        Bad{"NCCL_SOCKET_RETRY_CNT", "-1"}, Bad{"NCCL_SOCKET_RETRY_CNT", "1.5"},
        Bad{"NCCL_SOCKET_RETRY_SLEEP_MSEC", ""}, Bad{"HCCL_SOCKET_IFNAME", "^"},
        Bad{"NCCL_SOCKET_IFNAME", ""}, Bad{"HCCL_IF_IP", ""}, Bad{"HCCL_SOCKET_FAMILY", "inet"}}) {
    INFO(b.name << "=" << b.value);
    try {
      link_env_from({{b.name, b.value}});
      FAIL("accepted");
    } catch (const hn::compat::InputError& e) {
      CHECK(e.field() == b.name);
      CHECK(e.file() == "environment");
    }
  }
}

TEST_CASE("link env: a translated configuration keeps its link-setup budget") {
  // NCCL 20 retries x 1400 ms = 294 s  ->  HCCL_CONNECT_TIMEOUT=274 (+20 s) = 294 s.
  auto hccl = translated_env("export NCCL_SOCKET_RETRY_CNT=20 NCCL_SOCKET_RETRY_SLEEP_MSEC=1400\n",
                             "nccl", "hccl");
  CHECK(*link_env_from(hccl).link_deadline_s() == Approx(294));
  CHECK(*link_env_from({{"NCCL_SOCKET_RETRY_CNT", "20"}, {"NCCL_SOCKET_RETRY_SLEEP_MSEC", "1400"}})
             .link_deadline_s() == Approx(294));
  // HCCL 120 (+20 s) -> 53 retries x 100 ms = 143.1 s: the smallest NCCL budget covering 140 s.
  auto nccl = translated_env("export HCCL_CONNECT_TIMEOUT=120\n", "hccl", "nccl");
  LinkEnv l = link_env_from(nccl);
  CHECK(*l.retry_count == 53);
  CHECK(*l.link_deadline_s() == Approx(143.1));
  CHECK(*l.link_deadline_s() >= 140);
  CHECK(52.0 * 53 / 2 * 0.1 < 140);
  // The interface the comm layer binds is the parameter plane's NIC.
  Context ctx;
  ParamPlane p;
  p.plane = "param0";
  p.nic_exact = "ens1f0";
  ctx.param = p;
  auto iface = translated_env("export NCCL_SOCKET_IFNAME=^docker,lo\n", "nccl", "hccl", ctx);
  LinkEnv li = link_env_from(iface);
  CHECK(li.ifname_spec == "=ens1f0");
  CHECK(li.ifname_var == "HCCL_SOCKET_IFNAME");
}

TEST_CASE("link env: a budget past a day is capped at 86400 s, never overflowed") {
  CHECK(*link_env_from({{"HCCL_CONNECT_TIMEOUT", "99999999999999999999"}}).link_deadline_s() ==
        Approx(86400));
  CHECK(*link_env_from({{"NCCL_SOCKET_RETRY_CNT", "1000000000"}}).link_deadline_s() ==
        Approx(86400));
  CHECK(*link_env_from({{"HCCL_CONNECT_TIMEOUT", "7200"}}).link_deadline_s() == Approx(7220));
}
