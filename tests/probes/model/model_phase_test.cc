// The model phase on real ranks (--local-ranks), over shm and TCP.
//
// Equivalence: every layout of the issue trains the same loss curve as this
// process alone, within equivalence_tolerance() (f32) and within 1e-9 (f64);
// every rank reports the same curve bit for bit; replicas stay identical;
// resuming from the checkpoint reproduces the uninterrupted steps bit for
// bit. Mutations prove the checks catch faults: a flipped bit in one
// replica (MODEL-REPLICA names that rank), a skipped gradient reduction
// (MODEL-REPLICA and MODEL-EQUIVALENCE fail), a matrix without gelu (an L4
// FAIL in the words of `ops`, and nothing runs).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "compat/builtin_ops.h"
#include "probes/model/model_phase.h"
#include "tests/probes/model/phase_harness.h"
#include "tests/support/temp_dir.h"

using namespace hn;
using probes::model::ModelPhaseOptions;
using reports::Status;
using stack::comm::TransportKind;

namespace {

const compat::OpMatrix& cpu() {
  return compat::builtin_matrix("reference-cpu");
}

ModelPhaseOptions options(const std::string& layout, int steps = 6) {
  ModelPhaseOptions o;
  o.spec.steps = steps;
  o.spec.replica_check_every = 2;
  o.layout = stack::framework::parse_layout(layout);
  o.matrix = &cpu();
  o.reference = false;  // the test computes the single-rank curve once, itself
  return o;
}

Status status_of(const test::PhaseRun& run, const std::string& code) {
  auto f = run.with_code(code);
  REQUIRE(f.size() == 1);
  return f[0].status;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

const char* kLayouts[] = {"dp=2",      "tp=2",      "pp=2",     "dp=2,ep=2",
                          "tp=2,pp=2", "tp=2,dp=2", "dp=4,ep=2"};

}  // namespace

TEST_CASE("model phase: every layout equals the single-rank run, over shm and tcp") {
  ModelPhaseOptions base = options("dp=1");
  const std::vector<double> reference = test::single_rank_losses(base.spec, cpu());
  REQUIRE(reference.back() < reference.front());
  const double tol = probes::model::equivalence_tolerance(base.spec.size.dtype);
  for (TransportKind t : {TransportKind::kShm, TransportKind::kTcp})
    for (const char* layout : kLayouts) {
      ModelPhaseOptions o = options(layout);
      test::TempDir ckpt;
      o.checkpoint_dir = ckpt.path();
      test::PhaseSetup setup;
      setup.transport = t;
      auto run = test::run_phase(o.layout.world(), o, setup);
      INFO(layout << " over " << to_string(t) << "\n" << run.summary());
      REQUIRE(run.launch.exit_code == 0);
      const auto& losses = run.ranks[0].losses;
      REQUIRE(losses.size() == reference.size());
      for (std::size_t s = 0; s < losses.size(); ++s) {
        INFO("step " << s << ": " << losses[s] << " vs " << reference[s]);
        CHECK(std::abs(losses[s] - reference[s]) <= tol * std::abs(reference[s]));
      }
      for (const auto& r : run.ranks) CHECK(same_bits(r.losses, losses));
      CHECK(status_of(run, "MODEL-LOSS") == Status::kPass);
      CHECK(status_of(run, "MODEL-RESUME") == Status::kPass);  // bit for bit
      CHECK(status_of(run, "MODEL-CKPT-WRITE") == Status::kPass);
      CHECK(status_of(run, "MODEL-CKPT-READ") == Status::kPass);
      CHECK(status_of(run, "MODEL-CKPT-CHECKSUM") == Status::kPass);
      CHECK(status_of(run, "MODEL-OPS") == Status::kPass);
      // The layout's groups are evidence, not a check of their own.
      CHECK(run.with_code("MODEL-LAYOUT").empty());
      CHECK_THAT(run.with_code("MODEL-LOSS")[0].evidence.at("groups"),
                 Catch::Contains("over " + std::to_string(o.layout.world()) + " ranks"));
      for (const auto& f : run.with_code("MODEL-REPLICA")) CHECK(f.status == Status::kPass);
      // One per dp group and one per expert-dp group of two or more (the
      // default model has experts): a group of one has nothing to compare.
      const int groups = (o.layout.dp > 1 ? o.layout.world() / o.layout.dp : 0) +
                         (o.layout.expert_dp() > 1 ? o.layout.world() / o.layout.expert_dp() : 0);
      CHECK(run.with_code("MODEL-REPLICA").size() == static_cast<std::size_t>(groups));
      // Rank 0's table (the slowest rank's) has the step split by layer, and it adds up.
      const auto& table = run.ranks[0].table;
      double sum = 0;
      for (const auto& row : table.rows) sum += row.ms;
      CHECK(std::abs(sum - table.total_ms) <= 0.01 * table.total_ms + 0.01);
    }
}

TEST_CASE("model phase: f64 layouts equal one rank within 1e-9") {
  ModelPhaseOptions base = options("dp=1");
  base.spec.size.dtype = stack::op::DType::kF64;
  const std::vector<double> reference = test::single_rank_losses(base.spec, cpu());
  for (const char* layout : {"tp=2,pp=2", "dp=4,ep=2"}) {
    ModelPhaseOptions o = options(layout);
    o.spec.size.dtype = stack::op::DType::kF64;
    auto run = test::run_phase(o.layout.world(), o);
    INFO(layout << "\n" << run.summary());
    REQUIRE(run.launch.exit_code == 0);
    for (std::size_t s = 0; s < reference.size(); ++s)
      CHECK(std::abs(run.ranks[0].losses.at(s) - reference[s]) <= 1e-9 * reference[s]);
  }
}

TEST_CASE("model phase: the in-phase equivalence check passes, and fails without gradient sync") {
  ModelPhaseOptions o = options("dp=2");
  o.reference = true;
  auto good = test::run_phase(2, o);
  INFO(good.summary());
  REQUIRE(good.launch.exit_code == 0);
  CHECK(status_of(good, "MODEL-EQUIVALENCE") == Status::kPass);
  // Step time is figures, not a check: in the loss check's evidence.
  CHECK(good.with_code("MODEL-STEP-TIME").empty());
  CHECK_THAT(good.with_code("MODEL-LOSS")[0].evidence.at("step_time"),
             Catch::Contains("ms per step"));
  CHECK(good.with_code("MODEL-EQUIVALENCE")[0].metrics.count("max_relative_difference"));

  // Mutation: each replica steps on its own half of the batch.
  o.inject.skip_grad_sync = true;
  auto bad = test::run_phase(2, o);
  INFO(bad.summary());
  REQUIRE(bad.launch.exit_code == 0);
  CHECK(status_of(bad, "MODEL-EQUIVALENCE") == Status::kFail);
  CHECK_THAT(bad.with_code("MODEL-EQUIVALENCE")[0].message,
             Catch::Contains("at step 2 of the SGD probe in f64"));  // step 1 is before any update
  auto replica = bad.with_code("MODEL-REPLICA");
  REQUIRE(replica.size() == 2);  // dense and expert replicas
  for (const auto& f : replica) {
    CHECK(f.status == Status::kFail);
    CHECK_THAT(f.message, Catch::Contains("ranks [0,1] differ"));
  }
}

TEST_CASE("model phase: a bit flipped in one replica is named by the replica check") {
  ModelPhaseOptions o = options("dp=4");
  o.inject.flip_rank = 2;
  o.inject.flip_step = 2;
  auto run = test::run_phase(4, o);
  INFO(run.summary());
  REQUIRE(run.launch.exit_code == 0);
  // The flip hits a dense parameter: the dense replicas diverge, the experts not.
  std::vector<reports::Finding> failed;
  for (const auto& f : run.with_code("MODEL-REPLICA"))
    if (f.status == Status::kFail) failed.push_back(f);
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0].message,
             Catch::Contains("data-parallel replicas diverged after step 4: ranks [2] differ from "
                             "the others in [0,1,2,3]"));
  // The same run without the flip is clean: the check is what fails, not the run.
  o.inject = {};
  auto clean = test::run_phase(4, o);
  for (const auto& f : clean.with_code("MODEL-REPLICA")) CHECK(f.status == Status::kPass);
}

TEST_CASE(
    "model phase: a matrix without gelu is an L4 FAIL in the words of ops, and nothing runs") {
  compat::OpMatrix m = cpu();
  std::erase_if(m.entries, [](const compat::OpMatrixEntry& e) { return e.name == "gelu"; });
  m.backend = "npu-without-gelu";
  ModelPhaseOptions o = options("tp=2");
  o.matrix = &m;
  test::TempDir ckpt;
  o.checkpoint_dir = ckpt.path();
  auto run = test::run_phase(2, o);
  INFO(run.summary());
  REQUIRE(run.launch.exit_code == 0);
  auto f = run.with_code("OP-UNSUPPORTED-TYPE");
  REQUIRE(f.size() == 1);
  CHECK(f[0].status == Status::kFail);
  CHECK(f[0].layer == reports::Layer::kL4);
  CHECK(f[0].entity == "gelu");
  CHECK_THAT(f[0].message, Catch::StartsWith("unsupported operator type gelu on npu-without-gelu"));
  CHECK(status_of(run, "MODEL-OPS") == Status::kFail);
  for (const auto& r : run.ranks) {
    CHECK(r.losses.empty());  // no step ran
    for (const auto& x : r.findings)
      CHECK((x.code == "OP-UNSUPPORTED-TYPE" || x.code == "MODEL-OPS"));
  }
}

TEST_CASE("model phase: tensor parallelism on a plane of its own still equals one rank") {
  ModelPhaseOptions base = options("dp=1");
  const std::vector<double> reference = test::single_rank_losses(base.spec, cpu());
  ModelPhaseOptions o = options("tp=2,dp=2");
  stack::comm::LinkParams plane;
  plane.plane = "tp-plane";
  plane.bind_address = "127.0.0.2";
  o.group_links[stack::framework::GroupKind::kTensor] = plane;
  auto run = test::run_phase(4, o);
  INFO(run.summary());
  REQUIRE(run.launch.exit_code == 0);
  const double tol = probes::model::equivalence_tolerance(base.spec.size.dtype);
  for (std::size_t s = 0; s < reference.size(); ++s)
    CHECK(std::abs(run.ranks[0].losses.at(s) - reference[s]) <= tol * reference[s]);
  for (const auto& f : run.with_code("MODEL-REPLICA")) CHECK(f.status == Status::kPass);
}
