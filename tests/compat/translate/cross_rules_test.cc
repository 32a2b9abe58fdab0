// Cross-variable rules: each rule of the hccl and nccl tables, passing,
// violated, fixed from the profile, and not checkable.
#include "compat/translate/cross_rules.h"

#include <catch2/catch.hpp>

using namespace hn::compat::translate;

namespace {

const RuleSet& hccl() {
  static const RuleSet rs = RuleBook::load().for_check("hccl");
  return rs;
}

std::optional<CrossResult> run(const RuleSet& rs, std::map<std::string, std::string> env,
                               const std::string& id, const Context& ctx = {}) {
  for (auto& r : evaluate_cross(rs, env, ctx))
    if (r.id == id) return r;
  return std::nullopt;
}

Context with_ports(long long lo, long long hi, std::vector<PortRange> reserved = {}) {
  Context c;
  c.ephemeral = PortRange{lo, hi};
  c.reserved = std::move(reserved);
  c.ports_source = "test";
  return c;
}

}  // namespace

TEST_CASE("cross: HCCL_EVENT_TIMEOUT must exceed HCCL_EXEC_TIMEOUT") {
  const char* id = "event-timeout-above-exec-timeout";
  CHECK_FALSE(run(hccl(), {}, id));  // nothing set: the documented defaults (1868 > 1836) hold
  // Unset, torch_npu derives HCCL_EVENT_TIMEOUT as HCCL_EXEC_TIMEOUT + 30 s
  // (ProcessGroupHCCL.cpp): a long exec timeout alone cannot break the rule.
  CHECK_FALSE(run(hccl(), {{"HCCL_EXEC_TIMEOUT", "3600"}}, id));
  auto r = run(hccl(), {{"HCCL_EVENT_TIMEOUT", "3000"}, {"HCCL_EXEC_TIMEOUT", "3600"}}, id);
  REQUIRE(r);
  CHECK(r->state == CrossResult::kViolated);
  CHECK(r->severity == "review");
  CHECK_THAT(r->detail, Catch::Contains("HCCL_EVENT_TIMEOUT=3000, HCCL_EXEC_TIMEOUT=3600"));
  CHECK(r->todo == "Set HCCL_EVENT_TIMEOUT to at least 3601 (or lower HCCL_EXEC_TIMEOUT).");
  r = run(hccl(), {{"HCCL_EVENT_TIMEOUT", "1836"}}, id);
  CHECK(r->state == CrossResult::kViolated);  // equal is not greater
  r = run(hccl(), {{"HCCL_EVENT_TIMEOUT", "0"}, {"HCCL_EXEC_TIMEOUT", "3600"}}, id);
  CHECK(r->state == CrossResult::kOk);  // 0: torch_npu never gives up
  r = run(hccl(), {{"HCCL_EVENT_TIMEOUT", "4000"}, {"HCCL_EXEC_TIMEOUT", "0"}}, id);
  CHECK(r->state == CrossResult::kViolated);  // the device never gives up, torch_npu does
}

TEST_CASE("cross: the process-group timeout must reach HCCL_CONNECT_TIMEOUT, and clear +20 s") {
  const char* id = "pg-timeout-above-connect-timeout";
  Context ctx;
  // Below the connect timeout: torch_npu ends a link setup HCCL still waits for.
  ctx.pg_timeout_s = 119;
  auto r = run(hccl(), {}, id, ctx);
  REQUIRE(r);
  CHECK(r->state == CrossResult::kViolated);
  CHECK(r->severity == "warn");  // the job runs; only a slow setup tells the two apart
  CHECK_THAT(r->detail, Catch::Contains("ends a link setup that HCCL was told to wait for"));
  CHECK_THAT(r->todo, Catch::Contains("at least 120 s"));
  // From the connect timeout to + 20 s: only HCCL's own error is lost, advice.
  for (double pg : {120.0, 140.0}) {
    ctx.pg_timeout_s = pg;
    r = run(hccl(), {}, id, ctx);
    CHECK(r->state == CrossResult::kViolated);
    CHECK(r->severity == "warn");
    CHECK_THAT(r->detail, Catch::Contains("before HCCL reports which link failed"));
    CHECK_THAT(r->todo, Catch::Contains("at least 141 s"));
  }
  CHECK_THAT(r->values, Catch::Contains("the process-group timeout 140 s (--pg-timeout)"));
  ctx.pg_timeout_s = 141;
  CHECK(run(hccl(), {}, id, ctx)->state == CrossResult::kOk);
  // torch_npu: a timeout left at its default is HCCL_EXEC_TIMEOUT + 1800 s (3636 s).
  CHECK(run(hccl(), {{"HCCL_CONNECT_TIMEOUT", "1800"}}, id)->state == CrossResult::kOk);
  r = run(hccl(), {{"HCCL_CONNECT_TIMEOUT", "3700"}}, id);
  CHECK(r->state == CrossResult::kViolated);
  CHECK_THAT(r->values,
             Catch::Contains("3636 s (default: 1800 s + HCCL_EXEC_TIMEOUT=1836 (default))"));
  r = run(hccl(), {{"HCCL_CONNECT_TIMEOUT", "3700"}, {"HCCL_EXEC_TIMEOUT", "2000"}}, id);
  CHECK(r->state == CrossResult::kOk);  // 3800 s
  CHECK(run(hccl(), {{"HCCL_CONNECT_TIMEOUT", "1779"}}, id)->state == CrossResult::kOk);
}

TEST_CASE("cross: the process-group timeout above HCCL_EXEC_TIMEOUT is advice") {
  Context ctx;
  ctx.pg_timeout_s = 1800;
  auto r = run(hccl(), {}, "pg-timeout-above-exec-timeout", ctx);
  REQUIRE(r);
  CHECK(r->state == CrossResult::kViolated);
  CHECK(r->severity == "warn");
}

TEST_CASE("cross: HCCL_RDMA_SL must equal the profile's PFC priority") {
  const char* id = "rdma-sl-equals-pfc-priority";
  CHECK_FALSE(run(hccl(), {}, id));  // no profile, nothing set: nothing to say
  auto r = run(hccl(), {{"HCCL_RDMA_SL", "3"}}, id);
  REQUIRE(r);
  CHECK(r->state == CrossResult::kNotChecked);
  Context ctx;
  ctx.pfc_priority = 4;
  CHECK(run(hccl(), {}, id, ctx)->state == CrossResult::kOk);  // the default 4 matches
  CHECK(run(hccl(), {{"HCCL_RDMA_SL", "4"}}, id, ctx)->state == CrossResult::kOk);
  r = run(hccl(), {{"HCCL_RDMA_SL", "3"}}, id, ctx);
  CHECK(r->state == CrossResult::kViolated);  // set by the user: never overwritten
  CHECK(r->todo == "Set HCCL_RDMA_SL=4, or correct comm.pfc_priority if the profile is wrong.");
  ctx.pfc_priority = 3;
  std::map<std::string, std::string> env;
  auto all = evaluate_cross(hccl(), env, ctx);
  auto fixed =
      std::find_if(all.begin(), all.end(), [&](const CrossResult& c) { return c.id == id; });
  REQUIRE(fixed != all.end());
  CHECK(fixed->state == CrossResult::kFixed);
  CHECK(fixed->outputs == std::vector<std::pair<std::string, std::string>>{{"HCCL_RDMA_SL", "3"}});
  CHECK(env.at("HCCL_RDMA_SL") == "3");
}

TEST_CASE("cross: HCCL ports must stay out of the unreserved ephemeral range") {
  const char* id = "ports-outside-ephemeral-range";
  auto r = run(hccl(), {}, id);  // always evaluated; without the range it cannot be
  REQUIRE(r);
  CHECK(r->state == CrossResult::kNotChecked);
  r = run(hccl(), {}, id, with_ports(32768, 60999));  // Linux defaults vs HCCL's 60000 + 32
  CHECK(r->state == CrossResult::kViolated);
  CHECK(r->severity == "warn");  // only defaults involved
  CHECK_THAT(r->detail,
             Catch::Contains(
                 "HCCL_IF_BASE_PORT ports 60000-60031 lie in ip_local_port_range 32768-60999"));
  CHECK_THAT(r->todo, Catch::Contains("ip_local_reserved_ports=60000-60031"));
  CHECK(run(hccl(), {}, id, with_ports(32768, 60999, {{60000, 60031}}))->state == CrossResult::kOk);
  CHECK(run(hccl(), {}, id, with_ports(32768, 59999))->state == CrossResult::kOk);
  r = run(hccl(), {{"HCCL_IF_BASE_PORT", "59990"}}, id, with_ports(32768, 59999));
  CHECK(r->state == CrossResult::kViolated);
  CHECK(r->severity == "review");
  CHECK_THAT(r->detail, Catch::Contains("59990-59999"));
  // HCCL_HOST_SOCKET_PORT_RANGE replaces the base port's default.
  r = run(hccl(), {{"HCCL_HOST_SOCKET_PORT_RANGE", "61000-61031"}}, id, with_ports(32768, 60999));
  CHECK(r->state == CrossResult::kOk);
  // auto: the kernel assigns the ports, so there is no fixed port to collide.
  CHECK(
      run(hccl(), {{"HCCL_HOST_SOCKET_PORT_RANGE", "auto"}}, id, with_ports(32768, 60999))->state ==
      CrossResult::kOk);
  r = run(hccl(), {{"MASTER_PORT", "61010"}, {"HCCL_IF_BASE_PORT", "61000"}}, id,
          with_ports(32768, 60999));
  CHECK(r->state == CrossResult::kViolated);
  CHECK_THAT(r->detail, Catch::Contains("HCCL_IF_BASE_PORT and MASTER_PORT share ports 61010"));
}

TEST_CASE("cross: requires, exclusive and product limits") {
  auto r = run(hccl(), {{"HCCL_OP_RETRY_PARAMS", "MaxCnt:3"}}, "op-retry-params-need-enable");
  REQUIRE(r);
  CHECK(r->state == CrossResult::kViolated);
  CHECK(run(hccl(), {{"HCCL_OP_RETRY_PARAMS", "MaxCnt:3"}, {"HCCL_OP_RETRY_ENABLE", "L1:1"}},
            "op-retry-params-need-enable")
            ->state == CrossResult::kOk);
  r = run(hccl(), {{"HCCL_INTRA_ROCE_ENABLE", "1"}}, "intra-pcie-and-roce-exclusive");
  CHECK(r->state == CrossResult::kViolated);  // PCIe defaults to 1
  CHECK(run(hccl(), {{"HCCL_INTRA_ROCE_ENABLE", "1"}, {"HCCL_INTRA_PCIE_ENABLE", "0"}},
            "intra-pcie-and-roce-exclusive")
            ->state == CrossResult::kOk);
  RuleSet nccl = RuleBook::load().for_check("nccl");
  r = run(nccl, {{"NCCL_SOCKET_NTHREADS", "8"}, {"NCCL_NSOCKS_PERTHREAD", "8"}},
          "socket-threads-product");
  CHECK(r->state == CrossResult::kOk);
  r = run(nccl, {{"NCCL_SOCKET_NTHREADS", "8"}, {"NCCL_NSOCKS_PERTHREAD", "9"}},
          "socket-threads-product");
  CHECK(r->state == CrossResult::kViolated);
  CHECK_THAT(r->detail, Catch::Contains("gives 72"));
  r = run(nccl, {{"NCCL_NSOCKS_PERTHREAD", "65"}}, "socket-threads-product");
  CHECK(r->state == CrossResult::kViolated);  // times the default of 1
}
