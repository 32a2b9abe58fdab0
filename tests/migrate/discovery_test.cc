#include "migrate/discovery.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/text_file.h"

using hn::migrate::discover_launch_script;
using hn::migrate::Discovery;

namespace {

std::string value_of(const Discovery& d, const std::string& key) {
  const auto* f = d.last(key);
  return f ? f->value + " @" + std::to_string(f->line) + " via " + f->via : "(none)";
}

std::vector<std::string> values_of(const Discovery& d, const std::string& key) {
  std::vector<std::string> out;
  for (const auto* f : d.all(key)) out.push_back(f->value + " @" + std::to_string(f->line));
  return out;
}

}  // namespace

TEST_CASE("discovery: #SBATCH options before the first command, in every spelling") {
  auto d = discover_launch_script(
      "#!/bin/bash\n"
      "#SBATCH --nodes=4\n"
      "#SBATCH --ntasks-per-node=8\n"
      "#SBATCH --gres=gpu:a100:8\n"
      "#SBATCH -o /local/logs/%x-%j.out\n"
      "#SBATCH --error /local/logs/%x-%j.err   # errors too\n"
      "#SBATCH -N2\n"
      "#SBATCH --exclusive\n"
      "\n"
      "echo start\n"
      "#SBATCH --nodes=64\n",
      "job.sbatch");
  CHECK(value_of(d, "nodes") == "2 @7 via #SBATCH --nodes");
  CHECK(values_of(d, "nodes") == std::vector<std::string>{"4 @2", "2 @7"});
  CHECK(value_of(d, "ranks_per_node") == "8 @3 via #SBATCH --ntasks-per-node");
  CHECK(value_of(d, "gpus_per_node") == "8 @4 via #SBATCH --gres");
  CHECK(values_of(d, "logs") ==
        std::vector<std::string>{"/local/logs/%x-%j.out @5", "/local/logs/%x-%j.err @6"});
  REQUIRE(d.directives.size() == 7);
  CHECK(d.directives[6].option == "--exclusive");
  CHECK(d.directives[6].value.empty());
  CHECK(d.directives[2].text == "--gres=gpu:a100:8");
  // sbatch stops reading #SBATCH at the first command.
  REQUIRE(d.ignored.size() == 1);
  CHECK(d.ignored[0].line == 11);
  CHECK(d.ignored[0].text == "#SBATCH --nodes=64");
}

TEST_CASE("discovery: Megatron flags in arrays, variables and commands, expanded") {
  auto d = discover_launch_script(
      "CKPT=/local/nvme/ckpt\n"
      "PREFIX=/mnt/shared/pile_text_document\n"
      "TP=4\n"
      "PAR=(\n"
      "  --tensor-model-parallel-size $TP\n"
      "  --pipeline-model-parallel-size 2\n"
      ")\n"
      "OUT=\"--save $CKPT --load $CKPT\n"
      "     --tensorboard-dir /tmp/tb\"\n"
      "torchrun --nproc-per-node 8 --nnodes=$NNODES pretrain_gpt.py \\\n"
      "  \"${PAR[@]}\" $OUT \\\n"
      "  --data-path 0.3 $PREFIX 0.7 /mnt/shared/wiki_text_document \\\n"
      "  --distributed-timeout-minutes 45 --wandb-project gpt \\\n"
      "  --context-parallel-size=2 > /local/train.log 2>&1\n",
      "train.sh");
  CHECK(value_of(d, "tp") == "4 @5 via --tensor-model-parallel-size");
  CHECK(value_of(d, "pp") == "2 @6 via --pipeline-model-parallel-size");
  CHECK(value_of(d, "cp") == "2 @14 via --context-parallel-size");
  CHECK(value_of(d, "checkpoint") == "/local/nvme/ckpt @8 via --save");
  CHECK(value_of(d, "load") == "/local/nvme/ckpt @8 via --load");
  CHECK(values_of(d, "data") == std::vector<std::string>{"/mnt/shared/pile_text_document @12",
                                                         "/mnt/shared/wiki_text_document @12"});
  CHECK(values_of(d, "metrics") == std::vector<std::string>{"/tmp/tb @9", "wandb:gpt @13"});
  CHECK(value_of(d, "pg_timeout_s") == "2700 @13 via --distributed-timeout-minutes");
  CHECK(value_of(d, "ranks_per_node") == "8 @10 via torchrun --nproc-per-node");
  const auto* nodes = d.last("nodes");
  REQUIRE(nodes);
  CHECK(nodes->dynamic);
  CHECK(nodes->value == "$NNODES");
  CHECK(values_of(d, "logs") == std::vector<std::string>{"/local/train.log @14"});
}

TEST_CASE("discovery: srun options, and the program after them") {
  auto d = discover_launch_script(
      "srun -N 2 --ntasks-per-node=4 --gpus-per-node 4 -o out.log python -m "
      "torch.distributed.run --nproc_per_node=1 train.py --save /ckpt | tee -a run.log\n",
      "run.sh");
  CHECK(value_of(d, "nodes") == "2 @1 via srun --nodes");
  CHECK(values_of(d, "ranks_per_node") == std::vector<std::string>{"4 @1", "1 @1"});
  CHECK(value_of(d, "gpus_per_node") == "4 @1 via srun --gpus-per-node");
  CHECK(values_of(d, "logs") == std::vector<std::string>{"out.log @1", "run.log @1"});
  CHECK(value_of(d, "checkpoint") == "/ckpt @1 via --save");
}

TEST_CASE("discovery: a script with none of it finds nothing, and says nothing") {
  auto d = discover_launch_script("export NCCL_DEBUG=INFO\npython train.py\n", "plain.sh");
  CHECK(d.values.empty());
  CHECK(d.directives.empty());
  CHECK(d.ignored.empty());
}

TEST_CASE("discovery: here-documents and comments are not read") {
  auto d = discover_launch_script(
      "# --tensor-model-parallel-size 64\n"
      "cat > cfg <<EOF\n--pipeline-model-parallel-size 64\nEOF\n"
      "python train.py --pipeline-model-parallel-size 2\n",
      "h.sh");
  CHECK(values_of(d, "tp").empty());
  CHECK(values_of(d, "pp") == std::vector<std::string>{"2 @5"});
}

TEST_CASE("discovery: an unterminated quote is an input error naming the line") {
  try {
    discover_launch_script("echo ok\npython train.py --save \"/ckpt\n", "bad.sh");
    FAIL("expected an InputError");
  } catch (const hn::compat::InputError& e) {
    CHECK(e.file() == "bad.sh");
    CHECK(e.line() == 2);
  }
}

TEST_CASE("discovery: a real Megatron-LM launch script (examples/gpt3)") {
  // NVIDIA/Megatron-LM examples/gpt3/train_gpt3_175b_distributed.sh, copied
  // in tests/fixtures/migrate with its source.
  const std::string path = std::string(HN_FIXTURE_DIR) + "/migrate/train_gpt3_175b_distributed.sh";
  auto d = discover_launch_script(hn::compat::read_text_file(path), path);
  CHECK(value_of(d, "tp").rfind("8 @", 0) == 0);
  CHECK(value_of(d, "pp").rfind("16 @", 0) == 0);
  CHECK(d.last("checkpoint"));
  CHECK(d.last("load"));
  CHECK(d.last("metrics"));
  CHECK(d.last("ranks_per_node"));
  CHECK(d.last("nodes"));
}

TEST_CASE("discovery: truncated and corrupted scripts raise only input errors") {
  const std::string text = hn::compat::read_text_file(std::string(HN_SOURCE_DIR) +
                                                      "/examples/migrate/legacy/train.sbatch");
  auto survives = [](const std::string& t) {
    try {
      discover_launch_script(t, "x.sh");
    } catch (const hn::compat::InputError&) {
    }
  };
  for (size_t n = 0; n <= text.size(); n += 7) survives(text.substr(0, n));
  std::uint32_t seed = 7;
  const std::string bytes = "\"'\\$`(){}[]<>|&;#\n =-";
  for (int i = 0; i < 2000; ++i) {
    std::string t = text;
    for (int k = 0; k < 3; ++k) {
      seed = seed * 1103515245u + 12345u;
      t[(seed >> 8) % t.size()] = bytes[(seed >> 20) % bytes.size()];
    }
    survives(t);
  }
}
