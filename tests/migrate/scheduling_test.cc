// Concern 5: the job's size and layout against the target's topology.
#include <catch2/catch.hpp>

#include "migrate/concerns.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Status;
using hn::reports::Verdict;

TEST_CASE("scheduling: 4 nodes x 8, TP 8 inside each node's domain: ready") {
  hn::test::JobFixture fx;
  Concern c = check_scheduling(fx.resolve());
  CHECK(c.verdict() == Verdict::kReady);
  CHECK(hn::test::codes(c) == std::vector<std::string>{"MIG-SCHED-DIRECTIVE PASS --gres",
                                                       "MIG-SCHED-WORLD PASS layout",
                                                       "MIG-SCHED-CAPACITY PASS capacity",
                                                       "MIG-SCHED-TP-DOMAIN PASS tp groups"});
  CHECK(c.summary() == "32 ranks (4 x 8), tp 8, pp 4, cp 1, ep 1, dp 1");
}

TEST_CASE("scheduling: a TP group across two HCCS domains fails, with a TP size that fits") {
  hn::test::JobFixture fx;
  fx.edit("--tensor-model-parallel-size 8", "--tensor-model-parallel-size 16");
  fx.edit("--pipeline-model-parallel-size 4", "--pipeline-model-parallel-size 2");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-TP-DOMAIN");
  CHECK(f.status == Status::kFail);
  CHECK(f.evidence.at("ranks") == "0-15");
  CHECK(f.evidence.at("spans") == "domains hccs0 and hccs1");
  CHECK_THAT(f.remediation, Catch::Contains("tp=8 fits") && Catch::Contains("2 of 2 TP groups"));
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("scheduling: more nodes than the cluster has: blocked") {
  hn::test::JobFixture fx;
  fx.edit("#SBATCH --nodes=4", "#SBATCH --nodes=8");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-CAPACITY");
  CHECK(f.status == Status::kFail);
  CHECK(f.evidence.at("detail") == "it has 4 node(s) in all");
  CHECK(c.verdict() == Verdict::kBlocked);
}

TEST_CASE("scheduling: fewer ranks than accelerators leaves NPUs idle: a warning") {
  hn::test::JobFixture fx;
  fx.edit("#SBATCH --ntasks-per-node=8", "#SBATCH --ntasks-per-node=4");
  fx.edit("--pipeline-model-parallel-size 4", "--pipeline-model-parallel-size 2");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-CAPACITY");
  CHECK(f.status == Status::kWarn);
  CHECK(f.evidence.at("detail") == "4 of each node's 8 accelerators would stay idle");
}

TEST_CASE("scheduling: GPUs requested on an NPU cluster must change, naming the line") {
  hn::test::JobFixture fx;
  fx.edit("#SBATCH --gres=npu:8", "#SBATCH --gres=gpu:8");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-DIRECTIVE");
  CHECK(f.status == Status::kFail);
  CHECK(f.message == "#SBATCH --gres=gpu:8 (" + fx.dir.path() +
                         "/train.sbatch:5) requests GPUs (Slurm's gpu GRES), but the nodes of "
                         "supernode-a have huawei NPUs");
}

TEST_CASE("scheduling: a layout that does not divide the world size fails") {
  hn::test::JobFixture fx;
  fx.edit("--tensor-model-parallel-size 8", "--tensor-model-parallel-size 12");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-WORLD");
  CHECK(f.status == Status::kFail);
  CHECK(f.message == "tp x pp x cp = 48 does not divide the world size 32 (4 node(s) x 8)");
}

TEST_CASE("scheduling: a node count known only at run time leaves it unchecked, as a warning") {
  hn::test::JobFixture fx;
  fx.edit("#SBATCH --nodes=4\n", "");
  fx.edit("srun --kill-on-bad-exit=1", "srun --kill-on-bad-exit=1 -N $NNODES");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-UNKNOWN");
  CHECK(f.status == Status::kWarn);
  CHECK(f.evidence.at("why") == "nodes is $NNODES, only known at run time");
}

TEST_CASE("scheduling: an #SBATCH line after the first command is ignored by sbatch: a warning") {
  hn::test::JobFixture fx;
  fx.edit("set -euo pipefail\n", "set -euo pipefail\n#SBATCH --gres=npu:16\n");
  Concern c = check_scheduling(fx.resolve());
  bool found = false;
  for (const auto& i : c.items())
    if (i.finding.code == "MIG-SCHED-DIRECTIVE" && i.finding.status == Status::kWarn) {
      CHECK(i.finding.evidence.at("text") == "#SBATCH --gres=npu:16");
      found = true;
    }
  CHECK(found);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("scheduling: expert parallelism must divide data parallelism (the stack's layout)") {
  hn::test::JobFixture fx;
  fx.edit("--pipeline-model-parallel-size 4",
          "--pipeline-model-parallel-size 2 "
          "--expert-model-parallel-size 4");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-WORLD");
  CHECK(f.status == Status::kFail);
  CHECK_THAT(f.message, Catch::Contains("ep=4 must divide dp=2"));
  // Without a layout that fits, the TP groups are not placed.
  for (const auto& i : c.items()) CHECK(i.finding.code != "MIG-SCHED-TP-DOMAIN");
}
