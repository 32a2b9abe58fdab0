// Concern 1: the model's operators on the target's matrix.
#include <catch2/catch.hpp>

#include "migrate/concerns.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Status;
using hn::reports::Verdict;

TEST_CASE("operators: every operator of the fixed model runs: ready") {
  hn::test::JobFixture fx;
  std::vector<hn::reports::OperatorShare> shares;
  Concern c = check_operators(fx.resolve(), shares);
  CHECK(c.verdict() == Verdict::kReady);
  CHECK(c.summary() == "all 34 nodes run on example-npu");
  REQUIRE(shares.size() == 1);
  CHECK(shares[0].total == 34);
  CHECK(shares[0].by_class.at("supported") == 34);
}

TEST_CASE("operators: the legacy model's Einsum has no kernel: blocked") {
  hn::test::JobFixture fx;
  fx.model = hn::test::example_file("legacy/gpt_block.onnx");
  std::vector<hn::reports::OperatorShare> shares;
  Concern c = check_operators(fx.resolve(), shares);
  CHECK(c.verdict() == Verdict::kBlocked);
  const auto& f = hn::test::finding(c, "OP-UNSUPPORTED-TYPE");
  CHECK(f.entity == "Einsum f32");
  CHECK(f.status == Status::kFail);
  CHECK(c.summary() == "1 of 33 nodes (3.0%) cannot run on example-npu: Einsum f32");
  CHECK(shares[0].by_class.at("unsupported-op") == 1);
  CHECK(shares[0].by_class.at("supported") == 32);
}

TEST_CASE("operators: an op the mapping does not know needs a change, not a block") {
  hn::test::JobFixture fx;
  fx.model = fx.write("ops.txt", "aten::mm f32 4\nmy_custom_op f32 1\n");
  std::vector<hn::reports::OperatorShare> shares;
  Concern c = check_operators(fx.resolve(), shares);
  CHECK(c.verdict() != Verdict::kReady);
}

TEST_CASE("operators: no model is a change to make, never a silent pass") {
  hn::test::JobFixture fx;
  hn::migrate::JobOptions o;
  o.script = fx.write("train.sbatch", fx.script);
  o.profile = fx.profile;
  std::vector<hn::reports::OperatorShare> shares;
  Concern c = check_operators(resolve_job(o), shares);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
  CHECK(hn::test::finding(c, "MIG-OPS-NO-MODEL").status == Status::kWarn);
  CHECK(shares.empty());
}

TEST_CASE("operators: a model without the target's matrix is reported, not guessed") {
  hn::test::JobFixture fx;
  hn::migrate::JobOptions o;
  o.script = fx.write("train.sbatch", fx.script);
  o.profile = fx.profile;
  o.model = fx.model;
  std::vector<hn::reports::OperatorShare> shares;
  Concern c = check_operators(resolve_job(o), shares);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
  CHECK_THAT(hn::test::finding(c, "MIG-OPS-NO-MATRIX").remediation,
             Catch::Contains("built in: reference-cpu, example-npu, example-gpu"));
}
