// The translation pipeline around the rows: last assignment wins, explicit
// target settings win, conflicting rows need review, unknowns, run-time
// values, and the order of the written file.
#include "compat/translate/translator.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/translate/shell_input.h"

using namespace hn::compat::translate;

namespace {

const RuleBook& book() {
  static const RuleBook b = RuleBook::load();
  return b;
}

Translation run(const std::string& script, const std::string& from = "nccl",
                const std::string& to = "hccl", Context ctx = {}) {
  RuleSet rs = from.empty() ? book().for_check(to) : book().for_translation(from, to);
  return translate(parse_shell_text(script, "job.sh", ShellMode::kScript), rs, book(), ctx);
}

const VarResult& var(const Translation& t, const std::string& name, int nth = 0) {
  for (const auto& v : t.vars)
    if (v.input.name == name && nth-- == 0) return v;
  FAIL("no result for " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("translator: every input variable of ours gets exactly one result") {
  Translation t = run("export NCCL_IB_TIMEOUT=22 NCCL_BOGUS=1 PATH=/bin\nHOME=/root cmd\n");
  REQUIRE(t.vars.size() == 2);
  CHECK(var(t, "NCCL_IB_TIMEOUT").outcome == Outcome::kClamped);
  CHECK(var(t, "NCCL_BOGUS").outcome == Outcome::kUnknown);
  CHECK(t.others == std::vector<std::string>{"HOME", "PATH"});
  CHECK(var(t, "NCCL_IB_TIMEOUT").source == "N1,N2,H-RT,A7.1");
  CHECK(var(t, "NCCL_IB_TIMEOUT").range == "[5, 20]");
  CHECK(var(t, "NCCL_IB_TIMEOUT").input.where() == "job.sh:1");
}

TEST_CASE("translator: the last assignment wins, an earlier different one is reported") {
  Translation t = run("export NCCL_DEBUG=INFO\nexport NCCL_DEBUG=WARN\n");
  REQUIRE(t.vars.size() == 2);
  CHECK(var(t, "NCCL_DEBUG", 0).outcome == Outcome::kDropped);
  CHECK(var(t, "NCCL_DEBUG", 0).risk);
  CHECK(var(t, "NCCL_DEBUG", 0).detail == "overridden by NCCL_DEBUG=WARN at job.sh:2");
  CHECK(var(t, "NCCL_DEBUG", 1).outputs ==
        std::vector<std::pair<std::string, std::string>>{{"ASCEND_GLOBAL_LOG_LEVEL", "2"}});
  Translation same = run("export NCCL_DEBUG=INFO\nexport NCCL_DEBUG=INFO\n");
  REQUIRE(same.vars.size() == 1);
  CHECK(same.vars[0].also_at == std::vector<std::string>{"job.sh:1"});
}

TEST_CASE("translator: a target variable set in the input wins over a translation") {
  Translation t = run("export NCCL_BUFFSIZE=268435456\nexport HCCL_BUFFSIZE=400\n");
  CHECK(var(t, "NCCL_BUFFSIZE").outcome == Outcome::kDropped);
  CHECK_FALSE(var(t, "NCCL_BUFFSIZE").risk);
  CHECK(
      var(t, "NCCL_BUFFSIZE").detail ==
      "HCCL_BUFFSIZE is set explicitly at job.sh:2 (400), which wins over this translation (256)");
  CHECK(var(t, "HCCL_BUFFSIZE").outcome == Outcome::kTranslated);
  REQUIRE(t.env.size() == 1);
  CHECK(t.env[0].value == "400");
  Translation agree = run("export NCCL_BUFFSIZE=268435456 HCCL_BUFFSIZE=256\n");
  CHECK(var(agree, "NCCL_BUFFSIZE").outcome == Outcome::kConverted);
}

TEST_CASE("translator: two sources for one target variable must agree") {
  Context ctx;
  Translation t = run("export NCCL_SOCKET_IFNAME==ens1f0\nexport GLOO_SOCKET_IFNAME=ens2f0\n",
                      "torch", "hccl", ctx);
  CHECK(var(t, "NCCL_SOCKET_IFNAME").outcome == Outcome::kTranslated);
  CHECK(var(t, "GLOO_SOCKET_IFNAME").outcome == Outcome::kNeedsReview);
  CHECK_THAT(var(t, "GLOO_SOCKET_IFNAME").detail,
             Catch::Contains("conflicts with NCCL_SOCKET_IFNAME (job.sh:1): both set "
                             "HCCL_SOCKET_IFNAME, to =ens1f0 and =ens2f0"));
  Translation ok =
      run("export NCCL_SOCKET_IFNAME==ens1f0 GLOO_SOCKET_IFNAME=ens1f0\n", "torch", "hccl");
  CHECK(var(ok, "GLOO_SOCKET_IFNAME").outcome == Outcome::kConverted);
}

TEST_CASE("translator: values only known at run time") {
  Translation t =
      run("export MASTER_ADDR=$(hostname) NCCL_IB_TIMEOUT=$T NCCL_IB_HCA=`ls`\n", "torch", "hccl");
  CHECK(var(t, "MASTER_ADDR").outcome == Outcome::kTranslated);
  CHECK(var(t, "MASTER_ADDR").outputs.empty());
  CHECK(var(t, "NCCL_IB_TIMEOUT").outcome == Outcome::kNeedsReview);
  CHECK_THAT(var(t, "NCCL_IB_TIMEOUT").todo, Catch::Contains("--from-env"));
  CHECK(var(t, "NCCL_IB_HCA").outcome == Outcome::kDropped);  // dropped whatever its value
  CHECK(t.env.empty());
}

TEST_CASE("translator: a row over two variables runs once and reports both") {
  Translation t =
      run("export NCCL_SOCKET_RETRY_SLEEP_MSEC=1400\nexport NCCL_SOCKET_RETRY_CNT=20\n");
  REQUIRE(t.vars.size() == 2);
  CHECK(t.vars[0].outcome == Outcome::kConverted);
  CHECK(t.vars[1].outcome == Outcome::kConverted);
  CHECK(t.vars[0].detail == t.vars[1].detail);
  REQUIRE(t.env.size() == 1);
  CHECK(t.env[0].name == "HCCL_CONNECT_TIMEOUT");
  CHECK(t.env[0].value == "274");
  CHECK(t.env[0].origin ==
        "NCCL_SOCKET_RETRY_SLEEP_MSEC=1400 (job.sh:1), NCCL_SOCKET_RETRY_CNT=20 (job.sh:2), "
        "converted");
}

TEST_CASE("translator: the written file follows the input order, then profile fixes") {
  Context ctx;
  ctx.pfc_priority = 3;
  Translation t =
      run("export NCCL_DEBUG=WARN\nexport NCCL_IB_TIMEOUT=18\nexport NCCL_BUFFSIZE=268435456\n",
          "nccl", "hccl", ctx);
  REQUIRE(t.env.size() == 4);
  CHECK(t.env[0].name == "ASCEND_GLOBAL_LOG_LEVEL");
  CHECK(t.env[1].name == "HCCL_RDMA_TIMEOUT");
  CHECK(t.env[2].name == "HCCL_BUFFSIZE");
  CHECK(t.env[3].name == "HCCL_RDMA_SL");
  CHECK(t.env[3].value == "3");
  CHECK_THAT(t.env[3].origin, Catch::Contains("cross rule rdma-sl-equals-pfc-priority"));
}

TEST_CASE("translator: --check validates the target's own variables") {
  Translation t =
      run("export HCCL_RDMA_TIMEOUT=21 HCCL_BUFFSIZE=200 NCCL_DEBUG=INFO\n", "", "hccl");
  CHECK(t.from.empty());
  CHECK(var(t, "HCCL_RDMA_TIMEOUT").outcome == Outcome::kInvalid);
  CHECK(var(t, "HCCL_RDMA_TIMEOUT").rule == "check");
  CHECK(var(t, "HCCL_BUFFSIZE").outcome == Outcome::kTranslated);
  CHECK(var(t, "NCCL_DEBUG").outcome == Outcome::kUnknown);
  CHECK_THAT(var(t, "NCCL_DEBUG").detail, Catch::Contains("the nccl, rccl table lists it"));
}

TEST_CASE("translator: a malformed value is needs-review on that variable, the rest translates") {
  Translation t =
      run("\n\nexport NCCL_IB_TIMEOUT=abc NCCL_DEBUG=debug NCCL_SOCKET_FAMILY=ipv4\n"
          "export NCCL_IB_RETRY_CNT=7\n");
  const VarResult& v = var(t, "NCCL_IB_TIMEOUT");
  CHECK(v.outcome == Outcome::kNeedsReview);
  CHECK(v.input.where() == "job.sh:3");
  CHECK_THAT(v.detail, Catch::Contains("'abc' is not a value nccl reads: expected an integer"));
  CHECK(v.outputs.empty());
  CHECK(var(t, "NCCL_DEBUG").outcome == Outcome::kNeedsReview);
  CHECK_THAT(var(t, "NCCL_SOCKET_FAMILY").detail, Catch::Contains("AF_INET"));
  CHECK(var(t, "NCCL_IB_RETRY_CNT").outcome == Outcome::kTranslated);
  // Empty values: one rule for every variable, dropped with a warning.
  Translation e = run("export NCCL_IB_TIMEOUT= NCCL_SOCKET_IFNAME=\n");
  for (const char* n : {"NCCL_IB_TIMEOUT", "NCCL_SOCKET_IFNAME"}) {
    INFO(n);
    CHECK(var(e, n).outcome == Outcome::kDropped);
    CHECK(var(e, n).risk);
    CHECK_THAT(var(e, n).detail, Catch::Contains("reads as unset"));
  }
  CHECK(e.env.empty());
}

TEST_CASE("translator: a profile without a parameter plane says so") {
  Context ctx;
  ParamPlane p;
  p.unresolved = "the profile declares no plane of type parameter";
  ctx.param = p;
  Translation t = run("export NCCL_SOCKET_IFNAME=^lo\n", "nccl", "hccl", ctx);
  CHECK(var(t, "NCCL_SOCKET_IFNAME").outcome == Outcome::kNeedsReview);
  CHECK(var(t, "NCCL_SOCKET_IFNAME").detail == "the profile declares no plane of type parameter");
  CHECK_THAT(var(t, "NCCL_SOCKET_IFNAME").todo, Catch::Contains("--plane NAME"));
}

TEST_CASE("translator: --check makes a value the target's rules would change invalid") {
  Translation t =
      run("export HCCL_RDMA_TC=106\nexport HCCL_RDMA_TIMEOUT=25\nexport HCCL_RDMA_RETRY_CNT=0\n",
          "", "hccl");
  const VarResult& tc = var(t, "HCCL_RDMA_TC");
  CHECK(tc.outcome == Outcome::kInvalid);
  CHECK(tc.detail == "106 is not a multiple of 4, which HCCL_RDMA_TC must be");
  CHECK(tc.todo ==
        "Set HCCL_RDMA_TC=104, or another value hccl accepts: [0, 255], multiples of 4.");
  const VarResult& timeout = var(t, "HCCL_RDMA_TIMEOUT");
  CHECK(timeout.outcome == Outcome::kInvalid);
  CHECK(timeout.detail == "25 is outside HCCL_RDMA_TIMEOUT's range [5, 20]");
  CHECK(timeout.todo == "Set HCCL_RDMA_TIMEOUT=20, or another value hccl accepts: [5, 20].");
  const VarResult& retry = var(t, "HCCL_RDMA_RETRY_CNT");
  CHECK(retry.outcome == Outcome::kInvalid);
  CHECK(retry.detail == "0 is outside HCCL_RDMA_RETRY_CNT's range [1, 7]");
  CHECK_THAT(retry.todo, Catch::StartsWith("Set HCCL_RDMA_RETRY_CNT=1,"));
  // --check --out writes the fixed values; the exit code still fails the gate.
  REQUIRE(t.env.size() == 3);
  CHECK(t.env[0].value == "104");
  CHECK(t.env[0].origin == "HCCL_RDMA_TC=106 (job.sh:1), invalid");
  CHECK(t.env[1].value == "20");
  CHECK(t.env[2].value == "1");
}

TEST_CASE("translator: --check keeps re-spelled values and platform steps valid") {
  Translation hex = run("export HCCL_RDMA_TC=0x84 HCCL_RDMA_TIMEOUT=20\n", "", "hccl");
  CHECK(var(hex, "HCCL_RDMA_TC").outcome == Outcome::kConverted);  // the same number, 132
  CHECK(var(hex, "HCCL_RDMA_TIMEOUT").outcome == Outcome::kTranslated);
  // HCCL rounds HCCL_EXEC_TIMEOUT to 68 s steps itself on Atlas training: not a broken rule.
  Context ctx;
  ctx.platform = "atlas-training";
  Translation step = run("export HCCL_EXEC_TIMEOUT=600\n", "", "hccl", ctx);
  CHECK(var(step, "HCCL_EXEC_TIMEOUT").outcome == Outcome::kConverted);
  CHECK(var(step, "HCCL_EXEC_TIMEOUT").outputs.front().second == "544");
}

TEST_CASE("translator: a target variable in a translation keeps its clamped outcome") {
  Translation t = run("export HCCL_RDMA_TC=106 HCCL_RDMA_TIMEOUT=25\n", "nccl", "hccl");
  CHECK(var(t, "HCCL_RDMA_TC").rule == "target");
  CHECK(var(t, "HCCL_RDMA_TC").outcome == Outcome::kConverted);
  CHECK(var(t, "HCCL_RDMA_TIMEOUT").outcome == Outcome::kClamped);
}

TEST_CASE("translator: a buffer size in the other library's unit needs review") {
  // --check: HCCL_BUFFSIZE is MB; 8388608 is NCCL_BUFFSIZE's bytes copied over.
  Translation check = run("export HCCL_BUFFSIZE=8388608\n", "", "hccl");
  const VarResult& v = var(check, "HCCL_BUFFSIZE");
  CHECK(v.outcome == Outcome::kNeedsReview);
  CHECK_THAT(v.detail, Catch::StartsWith("8388608 MB is above the plausible maximum of 65536 MB "
                                         "for HCCL_BUFFSIZE: HCCL allocates the buffer twice"));
  CHECK_THAT(v.detail, Catch::Contains("looks like bytes"));
  CHECK(v.todo ==
        "Check the unit: HCCL_BUFFSIZE is in MB (default 200 MB). Set the size you mean in MB.");
  CHECK(check.env.empty());
  // The same value set explicitly next to a translation.
  Translation explicit_target = run("export HCCL_BUFFSIZE=8388608\n", "nccl", "hccl");
  CHECK(var(explicit_target, "HCCL_BUFFSIZE").outcome == Outcome::kNeedsReview);
  // hccl -> nccl: the source is implausible, so nothing is multiplied out.
  Translation back = run("export HCCL_BUFFSIZE=8388608\n", "hccl", "nccl");
  CHECK(var(back, "HCCL_BUFFSIZE").outcome == Outcome::kNeedsReview);
  CHECK_THAT(var(back, "HCCL_BUFFSIZE").detail, Catch::Contains("looks like bytes"));
  // nccl -> hccl: an MB count in NCCL_BUFFSIZE.
  Translation mb = run("export NCCL_BUFFSIZE=200\n", "nccl", "hccl");
  CHECK(var(mb, "NCCL_BUFFSIZE").outcome == Outcome::kNeedsReview);
  CHECK_THAT(var(mb, "NCCL_BUFFSIZE").detail, Catch::Contains("looks like MB"));
  CHECK(mb.env.empty());
  // --check nccl holds NCCL_BUFFSIZE to the same bound.
  Translation nccl = run("export NCCL_BUFFSIZE=200\n", "", "nccl");
  CHECK(var(nccl, "NCCL_BUFFSIZE").outcome == Outcome::kNeedsReview);
}

TEST_CASE("translator: a source value outside its own library's range needs review") {
  Translation t = run("export NCCL_BUFFSIZE=-1\n");
  const VarResult& buf = var(t, "NCCL_BUFFSIZE");
  CHECK(buf.outcome == Outcome::kNeedsReview);
  CHECK(buf.detail ==
        "NCCL_BUFFSIZE=-1 is outside nccl's own range [1, inf); fix the source value first");
  CHECK(buf.todo ==
        "Set NCCL_BUFFSIZE to a value nccl accepts ([1, inf)) in the source configuration, then "
        "translate again.");
  CHECK(t.env.empty());
  Translation retry = run("export NCCL_SOCKET_RETRY_CNT=-3\n");
  CHECK(var(retry, "NCCL_SOCKET_RETRY_CNT").outcome == Outcome::kNeedsReview);
  CHECK(var(retry, "NCCL_SOCKET_RETRY_CNT").detail ==
        "NCCL_SOCKET_RETRY_CNT=-3 is outside nccl's own range [1, inf); fix the source value "
        "first");
  CHECK(retry.env.empty());
  // The library's note on its range comes along.
  Translation sl = run("export NCCL_IB_SL=16\n");
  CHECK_THAT(var(sl, "NCCL_IB_SL").detail, Catch::Contains("(the IB spec allows 0-15"));
  // Past NCCL's 5-bit range: not "no limit" (only 0 is) but a source value
  // NCCL itself would not use as written, with the why.
  Translation inf = run("export NCCL_IB_TIMEOUT=99\n");
  CHECK(var(inf, "NCCL_IB_TIMEOUT").outcome == Outcome::kNeedsReview);
  CHECK_THAT(var(inf, "NCCL_IB_TIMEOUT").detail, !Catch::Contains("no limit"));
  // A source in range but out of the target's range still clamps.
  Translation clamp = run("export NCCL_IB_TIMEOUT=21 NCCL_IB_TC=106\n");
  CHECK(var(clamp, "NCCL_IB_TIMEOUT").outcome == Outcome::kClamped);
  CHECK(var(clamp, "NCCL_IB_TC").outcome == Outcome::kConverted);
}

TEST_CASE("translate: two containers' different values are alternatives, neither dropped") {
  std::vector<EnvEntry> entries(2);
  entries[0].name = entries[1].name = "NCCL_SOCKET_IFNAME";
  entries[0].value = "eth0";
  entries[1].value = "ib0";
  entries[0].scope = "container head";
  entries[1].scope = "container worker";
  entries[0].line = 8;
  entries[1].line = 11;
  Translation t = translate(entries, book().for_check("nccl"), book(), Context{});
  int results = 0;
  for (const auto& v : t.vars)
    if (v.input.name == "NCCL_SOCKET_IFNAME") {
      ++results;
      CHECK(v.outcome != Outcome::kDropped);
      CHECK(v.input.alternatives.size() == 2);
    }
  CHECK(results == 1);
  // The same without scopes (one environment): the later one overrides.
  entries[0].scope = entries[1].scope = "";
  Translation one = translate(entries, book().for_check("nccl"), book(), Context{});
  CHECK(var(one, "NCCL_SOCKET_IFNAME", 0).outcome == Outcome::kDropped);
}
