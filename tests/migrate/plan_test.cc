// The assembled migration: six concerns in order, verdicts that agree with
// the findings, changes blocking first, artifacts only with an out-dir.
#include "migrate/plan.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compat/text_file.h"
#include "migrate/concern.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Verdict;

TEST_CASE("plan: six concerns, verdicts from their findings, blocking changes first") {
  hn::test::JobFixture fx;
  fx.model = hn::test::example_file("legacy/gpt_block.onnx");
  fx.edit("#SBATCH --nodes=4", "#SBATCH --nodes=8");  // blocked scheduling as well
  fx.edit("CKPT_DIR=/mnt/shared/gpt-13b/checkpoints", "CKPT_DIR=/local/ckpt");
  MigrationRun run = plan_migration(fx.resolve(), {std::nullopt, "0.0-test", "host"});
  const auto& m = run.migration;
  std::vector<std::string> keys;
  for (const auto& c : m.concerns) keys.push_back(c.key);
  CHECK(keys == std::vector<std::string>{"operators", "comm", "storage", "network", "scheduling",
                                         "observability"});
  // Each concern's verdict is the worst of its findings; every finding is in
  // exactly one concern.
  std::size_t total = 0;
  for (const auto& c : m.concerns) {
    bool problem = false, skipped = false;
    for (std::size_t i : c.findings) {
      const auto& f = run.report.findings.at(i);
      problem = problem || is_problem(f);
      skipped = skipped || f.status == hn::reports::Status::kSkip;
    }
    CHECK(problem == (c.verdict == Verdict::kNeedsChanges || c.verdict == Verdict::kBlocked));
    if (!problem) CHECK(skipped == (c.verdict == Verdict::kNotChecked));
    total += c.findings.size();
  }
  CHECK(total == run.report.findings.size());
  CHECK(m.concerns[0].verdict == Verdict::kBlocked);
  CHECK(m.concerns[4].verdict == Verdict::kBlocked);
  REQUIRE(m.changes.size() > 3);
  CHECK(m.changes[0].severity == Verdict::kBlocked);
  CHECK(m.changes[0].concern == "operators");
  CHECK(m.changes[1].severity == Verdict::kBlocked);
  CHECK(m.changes[1].concern == "scheduling");
  CHECK(m.changes[1].code == "MIG-SCHED-CAPACITY");
  for (std::size_t i = 2; i < m.changes.size(); ++i)
    CHECK(m.changes[i].severity == Verdict::kNeedsChanges);
  CHECK(hn::reports::migration_exit_code(m) == 1);
  CHECK(run.artifacts.empty());
  auto j = nlohmann::json::parse(run.report.extra_json.at("migration"));
  CHECK(j.at("schema_version") == 1);
  CHECK(j.at("verdicts").at("scheduling") == "blocked");
  CHECK(run.report.command == "migrate");
}

TEST_CASE("plan: with an out-dir, the env file and the migrated script are produced") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_RDMA_TC=104", "export NCCL_IB_TC=106");
  MigrationRun run = plan_migration(fx.resolve(), {fx.dir.path() + "/out", "0.0-test", "host"});
  REQUIRE(run.artifacts.size() == 2);
  CHECK(run.artifacts[0].path == fx.dir.path() + "/out/t.hccl.env");
  CHECK_THAT(run.artifacts[0].content, Catch::Contains("HCCL_RDMA_TC=104\n"));
  CHECK(run.artifacts[1].path == fx.dir.path() + "/out/train.migrated.sbatch");
  CHECK(run.migration.artifacts[1].status == "not written yet");
  CHECK(planned_artifact_paths(fx.resolve(), fx.dir.path() + "/out") ==
        std::vector<std::string>{run.artifacts[0].path, run.artifacts[1].path});
}

TEST_CASE("plan: without a manifest or --name, the job is named by #SBATCH --job-name") {
  hn::test::TempDir dir;
  std::string script = hn::compat::read_text_file(hn::test::example_file("fixed/train.sbatch"));
  script.replace(script.find("gpt-13b"), 7, "gpt-13b/v2:x");
  hn::migrate::JobOptions o;
  o.script = dir.write("train.sbatch", script);
  o.profile = hn::test::example_file("cluster.yaml");
  hn::migrate::Job job = hn::migrate::resolve_job(o);
  CHECK(job.name == "gpt-13b_v2_x");  // safe as a file name: the env file is named after it
}

TEST_CASE("plan: a concern not fully checked exits 0, or 1 with --strict") {
  hn::reports::Migration m;
  m.concerns.push_back({"storage", "Storage", hn::reports::Verdict::kNotChecked, "", {}});
  CHECK(hn::reports::migration_exit_code(m) == 0);
  CHECK(hn::reports::migration_exit_code(m, true) == 1);
  m.concerns.push_back({"comm", "Comm", hn::reports::Verdict::kNeedsChanges, "", {}});
  CHECK(hn::reports::migration_exit_code(m) == 1);
}
