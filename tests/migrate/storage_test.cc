// Concern 3: the job's paths on shared storage, and its checkpoints.
#include <catch2/catch.hpp>

#include "compat/text_file.h"
#include "migrate/concerns.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Status;
using hn::reports::Verdict;

namespace {
const std::string kCert = std::string(HN_FIXTURE_DIR) + "/migrate/certificate.json";
}

TEST_CASE("storage: data and checkpoints on the shared mount: ready") {
  hn::test::JobFixture fx;
  Concern c = check_storage(fx.resolve());
  CHECK(c.verdict() == Verdict::kReady);
  CHECK(c.summary() == "5 of 5 path(s) on shared storage");
  const auto& space = hn::test::finding(c, "MIG-STOR-CKPT-SPACE");
  CHECK(space.status == Status::kPass);  // 180 GiB <= the profile's min_free_gib 2048
  CHECK(space.evidence.at("free") == "at least 2048.0 GiB");
  CHECK(hn::test::finding(c, "MIG-STOR-CKPT-TIME").status == Status::kSkip);
}

TEST_CASE("storage: checkpoints on node-local NVMe: needs changes, with the line to change") {
  hn::test::JobFixture fx;
  fx.edit("CKPT_DIR=/mnt/shared/gpt-13b/checkpoints", "CKPT_DIR=/local/nvme/gpt-13b/ckpt");
  Concern c = check_storage(fx.resolve());
  CHECK(c.verdict() == Verdict::kNeedsChanges);
  int local = 0;
  for (const auto& i : c.items())
    if (i.finding.code == "MIG-STOR-PATH" && i.finding.status == Status::kFail) {
      ++local;
      CHECK(i.finding.evidence.at("kind") == "on node-local disk (/local)");
      CHECK(i.finding.entity == "/local/nvme/gpt-13b/ckpt");
    }
  CHECK(local == 2);  // --save and --load
  CHECK(hn::test::finding(c, "MIG-STOR-CKPT-SPACE").status == Status::kSkip);
}

TEST_CASE("storage: the temp directory, memory and unknown paths each say what they are") {
  hn::test::JobFixture fx;
  fx.edit("--vocab-file /mnt/shared/datasets/gpt2-vocab.json", "--vocab-file /tmp/vocab.json");
  fx.edit("--merge-file /mnt/shared/datasets/gpt2-merges.txt", "--merge-file /dev/shm/merges.txt");
  fx.edit("DATA_PREFIX=/mnt/shared/datasets/pile/pile_text_document",
          "DATA_PREFIX=/data/$SLURM_JOB_ID/pile");
  Concern c = check_storage(fx.resolve());
  std::vector<std::string> kinds;
  for (const auto& i : c.items())
    if (i.finding.status != Status::kPass && i.finding.code.rfind("MIG-STOR-PATH", 0) == 0)
      kinds.push_back(i.finding.code + ": " +
                      (i.finding.evidence.count("kind") ? i.finding.evidence.at("kind")
                                                        : i.finding.evidence.at("why")));
  CHECK(kinds ==
        std::vector<std::string>{"MIG-STOR-PATH: not under any shared mount of the profile",
                                 "MIG-STOR-PATH: in the temp directory of each node",
                                 "MIG-STOR-PATH: in memory (/dev/shm, a tmpfs of each node)"});
}

TEST_CASE("storage: a path only known at run time cannot be placed: a warning, not a pass") {
  hn::test::JobFixture fx;
  fx.edit("CKPT_DIR=/mnt/shared/gpt-13b/checkpoints", "CKPT_DIR=$1");
  Concern c = check_storage(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-STOR-PATH-UNRESOLVED");
  CHECK(f.status == Status::kWarn);
  CHECK(f.evidence.at("why") == "it is only known at run time");
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("storage: the certificate's free space is too small: blocked") {
  hn::test::JobFixture fx;
  fx.tables = "[evidence]\ncertificate = \"" + kCert + "\"\n";
  Concern c = check_storage(fx.resolve());
  const auto& space = hn::test::finding(c, "MIG-STOR-CKPT-SPACE");
  CHECK(space.status == Status::kFail);
  CHECK(space.message ==
        "a 180GiB checkpoint does not fit on /mnt/shared: 120.0 GiB free (measured: " + kCert +
            ", host node1)");
  CHECK(c.verdict() == Verdict::kBlocked);
  // The time comes from the slowest node's measured write throughput.
  const auto& time = hn::test::finding(c, "MIG-STOR-CKPT-TIME");
  CHECK(time.status == Status::kPass);
  CHECK(time.evidence.at("mbps") == "940.0");
  CHECK(time.evidence.at("time") == "3.4 min");  // 180 GiB / 940 MB/s = 205.6 s
}

TEST_CASE("storage: a checkpoint that fits the measured space passes") {
  hn::test::JobFixture fx;
  fx.tables =
      "[storage]\ncheckpoint_size = \"100GiB\"\n[evidence]\ncertificate = \"" + kCert + "\"\n";
  Concern c = check_storage(fx.resolve());
  CHECK(hn::test::finding(c, "MIG-STOR-CKPT-SPACE").status == Status::kPass);
  CHECK(c.verdict() == Verdict::kReady);
}

TEST_CASE("storage: a node's snapshot shows the mount missing: the path is on its local disk") {
  hn::test::JobFixture fx;
  // node1 lacks /mnt/shared: its checkpoints would land on the root file system.
  std::string snap = fx.write("node1.yaml", R"(version: 1
hostname: node1
captured_at: 2026-11-30T08:00:00Z
tool_version: 0.1.0
physical: {memory: {total_kib: 1000, available_kib: 500}}
netplane: {}
storage:
  mounts:
    - {path: /, fstype: ext4, source: /dev/nvme0n1p2, mount_id: 1, parent_id: 0}
)");
  fx.tables = "[evidence]\nsnapshots = [\"" + snap + "\"]\n";
  Concern c = check_storage(fx.resolve());
  CHECK(c.verdict() == Verdict::kNeedsChanges);
  bool seen = false;
  for (const auto& i : c.items())
    if (i.finding.code == "MIG-STOR-PATH" && i.finding.status == Status::kFail) {
      CHECK(i.finding.evidence.at("kind") == "not on the shared mount /mnt/shared on every node");
      CHECK(i.finding.evidence.at("seen") == " (node1: ext4 /dev/nvme0n1p2 at /)");
      seen = true;
    }
  CHECK(seen);
}

TEST_CASE("storage: a profile without shared mounts cannot be ready") {
  hn::test::JobFixture fx;
  std::string profile = hn::compat::read_text_file(fx.profile);
  profile = profile.substr(0, profile.find("storage:")) + profile.substr(profile.find("physical:"));
  fx.profile = fx.write("cluster.yaml", profile);
  Concern c = check_storage(fx.resolve());
  CHECK(hn::test::codes(c) == std::vector<std::string>{"MIG-STOR-NO-MOUNTS FAIL storage.mounts"});
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}
