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

TEST_CASE("storage: data and checkpoints on the shared mount, the save time not measured") {
  hn::test::JobFixture fx;
  Concern c = check_storage(fx.resolve());
  CHECK(c.verdict() == Verdict::kNotChecked);  // no write throughput was measured
  CHECK(c.unchecked() == "checkpoint");
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

TEST_CASE("storage: --save and --load on one directory get one target, so the job resumes") {
  hn::test::JobFixture fx;
  fx.edit("CKPT_DIR=/mnt/shared/gpt-13b/checkpoints", "CKPT_DIR=/local/nvme/gpt-13b/ckpt");
  Concern c = check_storage(fx.resolve());
  std::vector<std::string> targets;
  for (const auto& i : c.items())
    if (i.finding.code == "MIG-STOR-PATH" && i.finding.status == Status::kFail)
      targets.push_back(i.finding.evidence.at("suggest"));
  REQUIRE(targets.size() == 2);
  CHECK(targets[0] == "/mnt/shared/t/checkpoint");
  CHECK(targets[1] == targets[0]);
}

TEST_CASE("storage: other frameworks' checkpoint flags are checkpoints too") {
  // PyTorch FSDP (--checkpoint_dir), Hugging Face (--output_dir), fairseq
  // (--save-dir), torchtitan (--job.dump_folder + --checkpoint.folder).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--checkpoint_dir=/local/ckpt", "/local/ckpt"},
      {"--output_dir /local/hf", "/local/hf"},
      {"--save-dir /local/fs", "/local/fs"},
      {"--job.dump_folder /local/tt --checkpoint.enable_checkpoint", "/local/tt/checkpoint"},
      {"--job.dump_folder /local/tt --checkpoint.enable --checkpoint.folder ck", "/local/tt/ck"}};
  for (const auto& [flags, path] : cases) {
    INFO(flags);
    hn::test::JobFixture fx;
    fx.edit("--save $CKPT_DIR\n  --load $CKPT_DIR\n", flags + "\n");
    Job job = fx.resolve();
    auto ckpt = job.paths_of("checkpoint");
    REQUIRE(ckpt.size() == 1);
    CHECK(ckpt[0]->path.value == path);
    Concern c = check_storage(job);
    CHECK(c.verdict() == Verdict::kNeedsChanges);  // node-local: must move
  }
  // torchtitan without checkpointing on writes none.
  hn::test::JobFixture off;
  off.edit("--save $CKPT_DIR\n  --load $CKPT_DIR\n", "--job.dump_folder /local/tt\n");
  CHECK(off.resolve().paths_of("checkpoint").empty());
  // --resume_from_checkpoint true names no path.
  hn::test::JobFixture hf;
  hf.edit("--load $CKPT_DIR\n", "--resume_from_checkpoint true\n");
  CHECK(hf.resolve().paths_of("load").empty());
}

TEST_CASE("storage: the checkpoint's size is estimated from the model's shape") {
  hn::test::JobFixture fx;
  fx.tables = "[storage]\n";  // no checkpoint_size
  Job job = fx.resolve();
  // 40 layers x 12 h^2 (+ norms) + a 256,000 vocabulary (not stated) x 5120,
  // 13.89e9 parameters x 14 bytes (bf16 + fp32 main weights + Adam).
  REQUIRE(job.checkpoint_bytes);
  CHECK(*job.checkpoint_bytes == 194522316800ull);
  REQUIRE(job.checkpoint_size);
  CHECK(job.checkpoint_size->origin == "derived");
  CHECK_THAT(job.checkpoint_size->where, Catch::Contains("13.89e9 parameters") &&
                                             Catch::Contains("x 14 bytes") &&
                                             Catch::Contains("not stated: taken as 256,000"));
  Concern c = check_storage(job);
  const auto& space = hn::test::finding(c, "MIG-STOR-CKPT-SPACE");
  CHECK(space.status == Status::kPass);  // within the profile's 2048 GiB
  CHECK_THAT(space.message, Catch::Contains("estimated at"));
  // GPT-2's tokenizer: 50257 padded to a multiple of 128 x tp 8 = 51200.
  fx.edit("--bf16", "--bf16 --tokenizer-type GPT2BPETokenizer");
  CHECK(*fx.resolve().checkpoint_bytes ==
        14ull * (40ull * (12ull * 5120 * 5120 + 4 * 5120) + 51200ull * 5120));
  // Without --no-save-optim's optimizer state: 2 bytes a parameter.
  fx.edit("--bf16", "--bf16 --no-save-optim");
  CHECK(*fx.resolve().checkpoint_bytes ==
        2ull * (40ull * (12ull * 5120 * 5120 + 4 * 5120) + 51200ull * 5120));
  // A size the manifest states wins over the estimate.
  hn::test::JobFixture stated;
  CHECK(*stated.resolve().checkpoint_bytes == 180ull << 30);
}

TEST_CASE("storage: a model shape past any real model gives no estimate, not an overflow") {
  hn::test::JobFixture fx;
  fx.tables = "[storage]\n";
  fx.edit("--num-layers 40", "--num-layers 999999999999");
  fx.edit("--hidden-size 5120", "--hidden-size 999999999999");
  Job job = fx.resolve();
  CHECK_FALSE(job.checkpoint_bytes);
  CHECK(hn::test::finding(check_storage(job), "MIG-STOR-CKPT-SPACE").status == Status::kSkip);
}
