// Concern 6: logs, metrics, and the target's checks that cover the job.
#include <catch2/catch.hpp>

#include "migrate/concerns.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Status;
using hn::reports::Verdict;

namespace {
Concern observability(const Job& job) {
  return check_observability(job, translate_job(job));
}
}  // namespace

TEST_CASE("observability: CANN logs to stdout, logs and metrics on shared storage: ready") {
  hn::test::JobFixture fx;
  Concern c = observability(fx.resolve());
  CHECK(c.verdict() == Verdict::kReady);
  const auto& log = hn::test::finding(c, "MIG-OBS-COMM-LOG");
  CHECK(log.message ==
        "hccl logs at INFO (ASCEND_GLOBAL_LOG_LEVEL=1) and writes to the job's standard output "
        "(ASCEND_SLOG_PRINT_TO_STDOUT=1)");
  int covered = 0;
  for (const auto& i : c.items()) covered += i.finding.code == "MIG-OBS-CHECKS";
  CHECK(covered == 5);  // L4, L3, L5, L6, L7
}

TEST_CASE("observability: CANN's plogs left on every node: needs changes") {
  hn::test::JobFixture fx;
  fx.edit("export ASCEND_SLOG_PRINT_TO_STDOUT=1\n", "");
  Concern c = observability(fx.resolve());
  CHECK(hn::test::finding(c, "MIG-OBS-COMM-LOG").status == Status::kWarn);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("observability: logs on local disk and no metrics: needs changes") {
  hn::test::JobFixture fx;
  fx.edit("#SBATCH --output=/mnt/shared/gpt-13b/logs/%x-%j.out",
          "#SBATCH --output=/local/logs/%x-%j.out");
  fx.edit("  --tensorboard-dir /mnt/shared/gpt-13b/tensorboard\n", "");
  Concern c = observability(fx.resolve());
  const auto& path = hn::test::finding(c, "MIG-STOR-PATH");
  CHECK(path.status == Status::kFail);
  CHECK(path.evidence.at("role") == "logs");
  CHECK(hn::test::finding(c, "MIG-OBS-METRICS").status == Status::kWarn);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("observability: no log destination at all is a warning, not a pass") {
  hn::test::JobFixture fx;
  fx.edit("#SBATCH --output=/mnt/shared/gpt-13b/logs/%x-%j.out\n", "");
  Concern c = observability(fx.resolve());
  CHECK(hn::test::finding(c, "MIG-OBS-NO-LOGS").status == Status::kWarn);
}

TEST_CASE("observability: a metrics service counts as an exporter") {
  hn::test::JobFixture fx;
  fx.edit("--tensorboard-dir /mnt/shared/gpt-13b/tensorboard", "--wandb-project gpt-13b");
  Concern c = observability(fx.resolve());
  const auto& m = hn::test::finding(c, "MIG-OBS-METRICS");
  CHECK(m.status == Status::kPass);
  CHECK(m.evidence.at("dest") == "wandb:gpt-13b");
}

TEST_CASE("observability: the certificate's failed collectives phase warns on L3") {
  hn::test::JobFixture fx;
  fx.tables = "[evidence]\ncertificate = \"" + std::string(HN_FIXTURE_DIR) +
              "/migrate/certificate.json\"\n";
  Concern c = observability(fx.resolve());
  for (const auto& i : c.items()) {
    if (i.finding.code != "MIG-OBS-CHECKS") continue;
    if (i.finding.entity == "L3") {
      CHECK(i.finding.status == Status::kWarn);
      CHECK_THAT(i.finding.message, Catch::Contains("records collectives FAIL"));
    } else if (i.finding.entity == "L7") {
      CHECK(i.finding.status == Status::kPass);
      CHECK_THAT(i.finding.message, Catch::Contains("records storage PASS"));
    }
  }
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}
