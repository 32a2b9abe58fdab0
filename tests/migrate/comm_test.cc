// Concern 2: the job's communication settings translated for the target.
#include <catch2/catch.hpp>

#include "migrate/concerns.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Status;
using hn::reports::Verdict;

namespace {
Concern comm(const Job& job) {
  return check_comm(job, translate_job(job), {});
}
}  // namespace

TEST_CASE("comm: settings already written for HCCL hold as they are: ready") {
  hn::test::JobFixture fx;
  Concern c = comm(fx.resolve());
  CHECK(c.verdict() == Verdict::kReady);
  CHECK(hn::test::finding(c, "MIG-COMM-APPLY").status == Status::kPass);
  const auto& link = hn::test::finding(c, "MIG-COMM-LINK-SETUP");
  CHECK(link.status == Status::kPass);
  CHECK(link.evidence.at("after") == "260.0 s");
  CHECK(link.evidence.at("before") == "59.5 s");  // NCCL's defaults: 34 retries x 100 ms
}

TEST_CASE("comm: an NCCL setting must change for HCCL: needs changes") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_RDMA_TC=104", "export NCCL_IB_TC=106");
  Concern c = comm(fx.resolve());
  CHECK(c.verdict() == Verdict::kNeedsChanges);
  const auto& apply = hn::test::finding(c, "MIG-COMM-APPLY");
  CHECK(apply.status == Status::kWarn);
  CHECK(apply.evidence.at("changed") == "1");
  CHECK(apply.evidence.at("detail") == "1 converted");
  CHECK(hn::test::finding(c, "COMM-PARAM-CONVERTED").entity == "NCCL_IB_TC");
}

TEST_CASE("comm: a target wait shorter than the old one is a warning") {
  hn::test::JobFixture fx;
  // NCCL waited 30 retries x 500 ms = 232.5 s; the explicit HCCL setting wins
  // over the translation and waits 120 + 20 s.
  fx.edit(
      "export HCCL_CONNECT_TIMEOUT=240",
      "export HCCL_CONNECT_TIMEOUT=120 NCCL_SOCKET_RETRY_CNT=30 NCCL_SOCKET_RETRY_SLEEP_MSEC=500");
  Concern c = comm(fx.resolve());
  const auto& link = hn::test::finding(c, "MIG-COMM-LINK-SETUP");
  CHECK(link.status == Status::kWarn);
  CHECK(link.evidence.at("before") == "232.5 s");
  CHECK(link.evidence.at("after") == "140.0 s");
  CHECK(link.evidence.at("need_s") == "213");
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("comm: no launch material is a change to make") {
  hn::test::JobFixture fx;
  hn::migrate::JobOptions o;
  o.profile = fx.profile;
  o.model = fx.model;
  o.backend = "example-npu";
  Job job = resolve_job(o);
  Concern c = comm(job);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
  CHECK(hn::test::finding(c, "MIG-COMM-NO-LAUNCH").status == Status::kWarn);
}

namespace {
const hn::reports::Finding* rule(const Concern& c, const std::string& id) {
  for (const auto& i : c.items())
    if (i.finding.entity == id) return &i.finding;
  return nullptr;
}
}  // namespace

TEST_CASE("comm: a Megatron-LM launch without a timeout flag runs with Megatron's 10 minutes") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_CONNECT_TIMEOUT=240", "export HCCL_CONNECT_TIMEOUT=1200");
  fx.edit("  --distributed-timeout-minutes 31\n", "");
  Job job = fx.resolve();
  REQUIRE(job.pg_timeout_s);
  CHECK(job.pg_timeout_s->value == "600");
  CHECK(job.pg_timeout_s->origin == "default");
  Concern c = comm(job);
  const auto* f = rule(c, "pg-timeout-above-connect-timeout");
  REQUIRE(f);
  CHECK(f->status == Status::kWarn);  // 600 s < 1200 s
  CHECK_THAT(f->message,
             Catch::Contains("600 s (Megatron-LM's default --distributed-timeout-minutes 10 "
                             "(no flag in the launch at"));
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("comm: the script's own timeout is named as the script's, equal to connect is advice") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_CONNECT_TIMEOUT=240", "export HCCL_CONNECT_TIMEOUT=1860");
  Concern c = comm(fx.resolve());  // --distributed-timeout-minutes 31 = 1860 s
  const auto* f = rule(c, "pg-timeout-above-connect-timeout");
  REQUIRE(f);
  CHECK(f->status == Status::kWarn);  // equal: only HCCL's own error is lost
  CHECK_THAT(f->message, Catch::Contains("1860 s (--distributed-timeout-minutes at ") &&
                             Catch::Contains("train.sbatch:58)"));
  CHECK_THAT(f->message, !Catch::Contains("--pg-timeout"));
  CHECK_THAT(f->remediation, Catch::Contains("at least 1881 s"));
}
