// Checkpoints on the FUSE test file system (faultfs): an EIO on write and a
// hung file system. Each is a finding naming the call, from every rank,
// within the checkpoint deadline; no manifest is written, so nothing is
// resumed; the training itself still passes.
#include <catch2/catch.hpp>

#include "compat/builtin_ops.h"
#include "probes/model/model_phase.h"
#include "tests/probes/model/phase_harness.h"
#include "tests/support/faultfs/faultfs_mount.h"
#include "tests/support/skip.h"

using namespace hn;
using reports::Status;

namespace {

probes::model::ModelPhaseOptions options(const std::string& dir) {
  probes::model::ModelPhaseOptions o;
  o.spec.steps = 4;
  o.spec.checkpoint_timeout_s = 2;
  o.layout = stack::framework::parse_layout("dp=2");
  o.matrix = &compat::builtin_matrix("reference-cpu");
  o.reference = false;
  o.checkpoint_dir = dir;
  return o;
}

}  // namespace

TEST_CASE("model phase on faultfs: a clean checkpoint, then EIO on write, then a hang") {
  if (auto why = test::FaultFsMount::unavailable_reason(); !why.empty()) test::skip(why);
  test::FaultFsMount fs;
  {
    auto run = test::run_phase(2, options(fs.path()));
    INFO(run.summary());
    REQUIRE(run.launch.exit_code == 0);
    CHECK(run.with_code("MODEL-CKPT-WRITE").at(0).status == Status::kPass);
    CHECK(run.with_code("MODEL-RESUME").at(0).status == Status::kPass);
  }
  {
    fs.control("error eio ops=write");
    auto run = test::run_phase(2, options(fs.path()));
    fs.control("error none");
    INFO(run.summary());
    REQUIRE(run.launch.exit_code == 0);
    auto io = run.with_code("MODEL-CKPT-IO-ERROR");
    REQUIRE(io.size() == 2);  // one per rank
    for (const auto& f : io) {
      CHECK(f.status == Status::kFail);
      CHECK(f.layer == reports::Layer::kL7);
      CHECK(f.evidence.at("op") == "write");
      CHECK(f.evidence.at("errno_name") == "EIO");
      CHECK_THAT(f.message, Catch::Contains("checkpoint write on rank"));
    }
    CHECK(run.with_code("MODEL-CKPT-WRITE").at(0).status == Status::kFail);
    CHECK(run.with_code("MODEL-RESUME").at(0).status == Status::kSkip);
    CHECK(run.with_code("MODEL-LOSS").at(0).status == Status::kPass);
  }
  {
    fs.control("hang on");
    auto run = test::run_phase(2, options(fs.path()));
    fs.control("hang off");
    INFO(run.summary());
    REQUIRE(run.launch.exit_code == 0);
    auto hung = run.with_code("MODEL-CKPT-HUNG");
    REQUIRE(hung.size() == 2);
    for (const auto& f : hung) {
      CHECK(f.status == Status::kFail);
      CHECK_THAT(f.evidence.at("call"), Catch::StartsWith("mkdir " + fs.path()));
      CHECK(f.metrics.at("elapsed_ms").value >= 2000);
      CHECK(f.metrics.at("elapsed_ms").value < 4000);  // the deadline, plus the kill
    }
    CHECK(run.with_code("MODEL-RESUME").at(0).status == Status::kSkip);
    CHECK(run.seconds < 30);
  }
}
