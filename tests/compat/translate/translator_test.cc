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
  Translation t = run("export NCCL_BUFFSIZE=8388608\nexport HCCL_BUFFSIZE=400\n");
  CHECK(var(t, "NCCL_BUFFSIZE").outcome == Outcome::kDropped);
  CHECK_FALSE(var(t, "NCCL_BUFFSIZE").risk);
  CHECK(var(t, "NCCL_BUFFSIZE").detail ==
        "HCCL_BUFFSIZE is set explicitly at job.sh:2 (400), which wins over this translation (8)");
  CHECK(var(t, "HCCL_BUFFSIZE").outcome == Outcome::kTranslated);
  REQUIRE(t.env.size() == 1);
  CHECK(t.env[0].value == "400");
  Translation agree = run("export NCCL_BUFFSIZE=8388608 HCCL_BUFFSIZE=8\n");
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
      run("export NCCL_DEBUG=WARN\nexport NCCL_IB_TIMEOUT=18\nexport NCCL_BUFFSIZE=1048576\n",
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
  CHECK(var(t, "HCCL_RDMA_TIMEOUT").outcome == Outcome::kClamped);
  CHECK(var(t, "HCCL_RDMA_TIMEOUT").rule == "check");
  CHECK(var(t, "HCCL_BUFFSIZE").outcome == Outcome::kTranslated);
  CHECK(var(t, "NCCL_DEBUG").outcome == Outcome::kUnknown);
  CHECK_THAT(var(t, "NCCL_DEBUG").detail, Catch::Contains("the nccl, rccl table lists it"));
}

TEST_CASE("translator: a malformed value stops with file, line and variable") {
  try {
    run("\n\nexport NCCL_IB_TIMEOUT=abc\n");
    FAIL("accepted");
  } catch (const hn::compat::InputError& e) {
    CHECK(e.file() == "job.sh");
    CHECK(e.line() == 3);
    CHECK(e.field() == "NCCL_IB_TIMEOUT");
  }
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
