// The generated files: the migrated launch script, and the rule that the
// user's files are never overwritten.
#include "migrate/artifacts.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "compat/input_error.h"
#include "compat/translate/env_input.h"
#include "compat/translate/rules.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace tr = hn::compat::translate;
using hn::migrate::render_migrated_script;

namespace {

std::string migrate_script(const std::string& text) {
  auto entries = tr::parse_env_input(text, "job.sh", tr::InputFormat::kScript);
  tr::RuleBook book = tr::RuleBook::load();
  tr::Context ctx;
  ctx.pfc_priority = 4;
  tr::Translation t = tr::translate(entries, book.for_translation("torch", "hccl"), book, ctx);
  return render_migrated_script(text, "job.sh", t,
                                "hnprecheck migrate job: --from torch --to hccl");
}

}  // namespace

TEST_CASE("artifacts: assignment lines become their translation, the original kept as a comment") {
  const std::string out = migrate_script(
      "#!/bin/bash\n"
      "#SBATCH --nodes=2\n"
      "export NCCL_IB_TC=106 OMP_NUM_THREADS=8\n"
      "export NCCL_DEBUG_FILE=/local/nccl.%h.log\n"
      "MASTER_PORT=29500\n"
      "NCCL_IB_SL=3 srun python train.py\n");
  CHECK(out ==
        "#!/bin/bash\n"
        "# hnprecheck migrate job: --from torch --to hccl (each changed line keeps the original as "
        "a comment)\n"
        "#SBATCH --nodes=2\n"
        "# ---- hnprecheck migrate: settings no single line of the original sets ----\n"
        "export HCCL_RDMA_SL=4  # NCCL_IB_SL=3 (job.sh:6 (prefix of srun)), converted\n"
        "# ----\n"
        "# hnprecheck migrate: was: export NCCL_IB_TC=106 OMP_NUM_THREADS=8\n"
        "export HCCL_RDMA_TC=104  # hnprecheck migrate: from NCCL_IB_TC=106, converted\n"
        "export OMP_NUM_THREADS=8\n"
        "# hnprecheck migrate: was: export NCCL_DEBUG_FILE=/local/nccl.%h.log\n"
        "# hnprecheck migrate: NCCL_DEBUG_FILE dropped: CANN writes its logs to "
        "~/ascend/log/run/plog/ (or stdout with ASCEND_SLOG_PRINT_TO_STDOUT=1); there is no "
        "file-name pattern\n"
        "MASTER_PORT=29500\n"
        "# hnprecheck migrate: NCCL_IB_SL set on this command line; the translated values are in "
        "the block above, edit this line by hand\n"
        "NCCL_IB_SL=3 srun python train.py\n");
}

TEST_CASE("artifacts: the migrated example script is valid shell") {
  hn::test::TempDir dir;
  const std::string text =
      "#!/bin/bash\nset -e\nexport NCCL_SOCKET_RETRY_CNT=30 NCCL_SOCKET_RETRY_SLEEP_MSEC=500\n"
      "export NCCL_ALGO=Ring\nARGS=(\n  --save /x\n)\necho \"${ARGS[@]}\"\n";
  std::string path = dir.write("migrated.sh", migrate_script(text));
  auto r = hn::test::run_process({"/bin/bash", "-n", path});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  std::string out = hn::test::read_file(path);
  CHECK_THAT(out, Catch::Contains("export HCCL_CONNECT_TIMEOUT=213  # hnprecheck migrate: from "
                                  "NCCL_SOCKET_RETRY_CNT=30, converted\n"
                                  "# hnprecheck migrate: NCCL_SOCKET_RETRY_SLEEP_MSEC is part of "
                                  "HCCL_CONNECT_TIMEOUT above\n"));
  CHECK_THAT(out, Catch::Contains("export HCCL_ALGO='level0:NA;level1:ring'"));
}

TEST_CASE("artifacts: file names in the out-dir") {
  CHECK(hn::migrate::env_artifact_path("out", "gpt", "hccl") == "out/gpt.hccl.env");
  CHECK(hn::migrate::script_artifact_path("out", "jobs/train.sbatch") ==
        "out/train.migrated.sbatch");
  CHECK(hn::migrate::script_artifact_path("out", "run") == "out/run.migrated");
}

TEST_CASE("artifacts: the user's files are never overwritten") {
  hn::test::TempDir dir;
  const std::string out = dir.path() + "/out";
  const std::string env = out + "/gpt.hccl.env";
  // A missing out-dir is created; its parent must exist.
  hn::migrate::check_artifact_paths(out, {env}, {});
  CHECK(std::filesystem::is_directory(out));
  CHECK_THROWS_WITH(hn::migrate::check_artifact_paths(dir.path() + "/no/such", {}, {}),
                    Catch::Contains("its parent directory does not exist"));
  // A file of ours (it names hnprecheck migrate in its first lines and its
  // seal matches) may be replaced.
  const std::string ours =
      hn::migrate::seal_artifact("# hnprecheck migrate gpt: --from torch --to hccl\nA=1\n");
  dir.write("out/gpt.hccl.env", ours);
  hn::migrate::check_artifact_paths(out, {env}, {});
  // Edited by hand since: refused, and the edit survives.
  std::string edited = ours;
  edited.replace(edited.find("A=1"), 3, "A=2");
  dir.write("out/gpt.hccl.env", edited);
  CHECK_THROWS_WITH(hn::migrate::check_artifact_paths(out, {env}, {}),
                    Catch::Contains("changed since") && Catch::Contains("hand edits"));
  dir.write("out/gpt.hccl.env", ours + "B=3\n");  // a line added after the seal
  CHECK_THROWS_WITH(hn::migrate::check_artifact_paths(out, {env}, {}),
                    Catch::Contains("changed since"));
  // An older file with the marker and no seal cannot be told from an edited one.
  dir.write("out/gpt.hccl.env", "# hnprecheck migrate gpt: --from torch --to hccl\nA=1\n");
  CHECK_THROWS_WITH(hn::migrate::check_artifact_paths(out, {env}, {}),
                    Catch::Contains("changed since"));
  // Anything else is refused, and so is one of the job's inputs.
  dir.write("out/gpt.hccl.env", "HCCL_BUFFSIZE=200\n");
  try {
    hn::migrate::check_artifact_paths(out, {env}, {});
    FAIL("overwrote a user's file");
  } catch (const hn::compat::InputError& e) {
    CHECK(e.field() == "--out-dir");
    CHECK_THAT(e.what(), Catch::Contains("exists and was not written by hnprecheck migrate"));
  }
  std::string script = dir.write("out/train.migrated.sbatch", "# hnprecheck migrate x\n");
  CHECK_THROWS_WITH(hn::migrate::check_artifact_paths(out, {script}, {script}),
                    Catch::Contains("is one of the job's inputs"));
  dir.write("file", "x");
  CHECK_THROWS_WITH(hn::migrate::check_artifact_paths(dir.path() + "/file", {}, {}),
                    Catch::Contains("exists and is not a directory"));
}

TEST_CASE("artifacts: the seal holds only for the exact text it was made for") {
  const std::string sealed = hn::migrate::seal_artifact("a\nb\n");
  CHECK(hn::migrate::artifact_sealed(sealed));
  CHECK(hn::migrate::seal_artifact("a\nb") == sealed);  // a last line without '\n' gets one
  std::string changed = sealed;
  changed[0] = 'x';
  CHECK_FALSE(hn::migrate::artifact_sealed(changed));
  CHECK_FALSE(hn::migrate::artifact_sealed("a\nb\n"));
  CHECK_FALSE(hn::migrate::artifact_sealed(sealed.substr(0, sealed.size() - 1)));
  CHECK_FALSE(hn::migrate::artifact_sealed(""));
}

TEST_CASE("artifacts: an Open MPI launch forwards the translated settings with -x") {
  const std::string out = migrate_script(
      "#!/bin/bash\nexport NCCL_IB_TC=106\nexport NCCL_SOCKET_IFNAME=eth0\n"
      "mpirun -np 16 --hostfile hosts \\\n  -x PATH python train.py\n");
  INFO(out);
  // Every name of the translated environment, once, on the mpirun line.
  const auto at = out.find("\nmpirun -x ");
  REQUIRE(at != std::string::npos);
  const std::string line = out.substr(at + 1, out.find('\n', at + 1) - at - 1);
  CHECK(line == "mpirun -x HCCL_RDMA_TC -np 16 --hostfile hosts \\");
  CHECK_THAT(out, Catch::Contains("Open MPI passes only the variables -x names"));
  // Already forwarded: nothing added. MPICH's -genv: left to the user.
  const std::string twice =
      migrate_script("export NCCL_IB_TC=106\nmpirun -x HCCL_RDMA_TC -np 2 a.out\n");
  CHECK(twice.find("-x HCCL_RDMA_TC -x HCCL_RDMA_TC") == std::string::npos);
  const std::string mpich = migrate_script("export NCCL_IB_TC=106\nmpiexec -genvall -n 2 a.out\n");
  CHECK(mpich.find("mpiexec -x") == std::string::npos);
}

TEST_CASE("artifacts: for an NPU cluster the copy moves the job off its GPUs") {
  const std::string script =
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:a100:8\n#SBATCH --gpus-per-task=1\n"
      "#SBATCH --time=1:00:00\n\nexport CUDA_VISIBLE_DEVICES=0,1,2,3\n"
      "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
      "export LD_PRELOAD=/opt/nccl/lib/libnccl.so.2\nsrun python train.py\n";
  auto entries = tr::parse_env_input(script, "job.sh", tr::InputFormat::kScript);
  tr::RuleBook book = tr::RuleBook::load();
  tr::Translation t = tr::translate(entries, book.for_translation("torch", "hccl"), book, {});
  const std::string out = render_migrated_script(script, "job.sh", t, "hnprecheck migrate j", true);
  INFO(out);
  CHECK_THAT(out, Catch::Contains("\n#SBATCH --gres=npu:8\n"));
  CHECK_THAT(out, Catch::Contains("\n##SBATCH --gpus-per-task=1\n"));  // sbatch skips it
  CHECK_THAT(out, Catch::Contains("\n#SBATCH --time=1:00:00\n"));      // untouched
  CHECK_THAT(out, Catch::Contains("\nexport ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n"));
  CHECK_THAT(out, Catch::Contains("\nexport PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\n"));
  CHECK_THAT(out, Catch::Contains("was: export LD_PRELOAD=/opt/nccl/lib/libnccl.so.2"));
  CHECK(out.find("\nexport LD_PRELOAD") == std::string::npos);
  CHECK_THAT(out, Catch::Contains("line 3: '#SBATCH --gres=gpu:a100:8' requests NPUs instead"));
  // The directives stay above the first command, where sbatch reads them.
  CHECK(out.find("#SBATCH --gres=npu:8") < out.find("export ASCEND_RT_VISIBLE_DEVICES"));
  // The migrated script is valid shell.
  hn::test::TempDir dir;
  const std::string path = dir.write("m.sh", out);
  CHECK(hn::test::run_process({"/bin/bash", "-n", path}, 30).exit_code == 0);
  // A GPU target keeps them.
  const std::string gpu =
      render_migrated_script(script, "job.sh", t, "hnprecheck migrate j", false);
  CHECK_THAT(gpu, Catch::Contains("\n#SBATCH --gres=gpu:a100:8\n"));
}
