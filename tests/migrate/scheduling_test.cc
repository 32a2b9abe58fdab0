// Concern 5: the job's size and layout against the target's topology.
#include <catch2/catch.hpp>

#include "compat/text_file.h"
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

TEST_CASE("scheduling: more nodes than the profile has is blocked without accelerator facts") {
  // The node count alone says the job cannot run; it does not need
  // physical.accelerators (a profile of two bare hosts).
  hn::test::JobFixture fx;
  fx.profile = fx.write("two.yaml",
                        "version: 1\ncluster: two\nnodes:\n  - {name: a}\n  - {name: b}\n"
                        "storage:\n  mounts:\n    - {path: /mnt/shared, fstype: nfs4}\n");
  fx.edit("#SBATCH --nodes=4", "#SBATCH --nodes=64");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-CAPACITY");
  CHECK(f.status == Status::kFail);
  CHECK(f.evidence.at("detail") == "it has 2 node(s) in all");
  CHECK(c.verdict() == Verdict::kBlocked);
  // With the ranks per node unknown too, the node count is still judged.
  fx.edit("#SBATCH --ntasks-per-node=8\n", "");
  Concern u = check_scheduling(fx.resolve());
  CHECK(hn::test::finding(u, "MIG-SCHED-CAPACITY").status == Status::kFail);
  CHECK(u.verdict() == Verdict::kBlocked);
}

TEST_CASE("scheduling: Slurm's variables resolve from the script's own directives") {
  hn::test::JobFixture fx;
  fx.edit("srun --kill-on-bad-exit=1 python -u pretrain_gpt.py",
          "srun --kill-on-bad-exit=1 torchrun --nnodes=$SLURM_JOB_NUM_NODES "
          "--nproc-per-node=$SLURM_NTASKS_PER_NODE pretrain_gpt.py");
  Job job = fx.resolve();
  // torchrun's options win over #SBATCH, and now carry its numbers.
  REQUIRE(job.count("nodes"));
  CHECK(*job.count("nodes") == 4);
  CHECK_THAT(job.layout.at("nodes").where, Catch::EndsWith("train.sbatch:61"));
  REQUIRE(job.count("ranks_per_node"));
  CHECK(*job.count("ranks_per_node") == 8);
  Concern c = check_scheduling(job);
  for (const auto& i : c.items()) CHECK(i.finding.code != "MIG-SCHED-UNKNOWN");
  CHECK(c.verdict() == Verdict::kReady);
  // A range is only known at run time: still not guessed.
  fx.edit("#SBATCH --nodes=4", "#SBATCH --nodes=2-4");
  CHECK_FALSE(fx.resolve().count("nodes"));
}

TEST_CASE("scheduling: a separate expert-tensor size follows Megatron-Core's expert grid") {
  // tp 4, ep 4, etp 1 on 32 ranks: dp = 4 (pp 2), the expert grid 1 x 4 x 2
  // = 8 divides 32. Without --expert-tensor-parallel-size, etp = tp and the
  // grid 4 x 4 x 2 = 32 still divides; with ep 8 it would not (64).
  hn::test::JobFixture fx;
  fx.edit("--tensor-model-parallel-size 8", "--tensor-model-parallel-size 4");
  fx.edit("--pipeline-model-parallel-size 4",
          "--pipeline-model-parallel-size 2 --expert-model-parallel-size 8 "
          "--expert-tensor-parallel-size 1");
  Concern ok = check_scheduling(fx.resolve());
  CHECK(hn::test::finding(ok, "MIG-SCHED-WORLD").status == Status::kPass);
  CHECK_THAT(ok.summary(), Catch::Contains("ep 8, etp 1"));
  // The same layout without etp: ep 8 must divide dp 4, as Megatron has it.
  fx.edit(" --expert-tensor-parallel-size 1", "");
  Concern bad = check_scheduling(fx.resolve());
  CHECK(hn::test::finding(bad, "MIG-SCHED-WORLD").status == Status::kFail);
  // etp too large for the world: the grid 8 x 8 x 2 = 128 does not divide 32.
  fx.edit("--expert-model-parallel-size 8",
          "--expert-model-parallel-size 8 --expert-tensor-parallel-size 8");
  Concern grid = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(grid, "MIG-SCHED-WORLD");
  CHECK(f.status == Status::kFail);
  CHECK_THAT(f.message, Catch::Contains("8 x 8 x 2 = 128 does not divide the world size 32"));
}

TEST_CASE("scheduling: a check that could not run makes the concern not fully checked") {
  hn::test::JobFixture fx;
  // No topology domains: the TP placement cannot be judged.
  std::string profile = hn::compat::read_text_file(fx.profile);
  profile = profile.substr(0, profile.find("topology:"));
  fx.profile = fx.write("nodomains.yaml", profile);
  Concern c = check_scheduling(fx.resolve());
  CHECK(hn::test::finding(c, "MIG-SCHED-TP-DOMAIN").status == Status::kSkip);
  CHECK(c.verdict() == Verdict::kNotChecked);
  CHECK(c.unchecked() == "tp groups");
}

TEST_CASE("scheduling: layout sizes whose product overflows 64 bits fail as not dividing") {
  hn::test::JobFixture fx;
  fx.edit("--tensor-model-parallel-size 8", "--tensor-model-parallel-size 999999999");
  fx.edit("--pipeline-model-parallel-size 4",
          "--pipeline-model-parallel-size 999999999 --context-parallel-size 999999999");
  Concern c = check_scheduling(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-SCHED-WORLD");
  CHECK(f.status == Status::kFail);
  CHECK_THAT(f.message, Catch::Contains("= 999999997000000002999999999 does not divide"));
}
