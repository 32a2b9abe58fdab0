// The line scans of compat/translate/input_scan.cc: here, the framework flags
// that carry the process-group timeout (Megatron-LM's
// --distributed-timeout-minutes), read from scripts and manifests.
#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/translate/k8s_input.h"
#include "compat/translate/shell_input.h"
#include "tests/support/temp_dir.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

TEST_CASE("framework flags: the timeout in minutes, as seconds, with its line") {
  auto flags = framework_flags(
      "#!/bin/bash\ntorchrun pretrain_gpt.py --distributed-timeout-minutes 30\n"
      "python x.py --distributed_timeout_minutes=2.5\n",
      "job.sh");
  REQUIRE(flags.size() == 2);
  CHECK(flags[0].value == "30");
  CHECK(flags[0].seconds == 1800);
  CHECK(flags[0].where() == "job.sh:2");
  CHECK(flags[1].seconds == 150);
  CHECK(flags[1].where() == "job.sh:3");
}

TEST_CASE("framework flags: a malformed value is bad input at its line, never a crash") {
  // Found by fuzz_k8s_manifest: "--distributed_timeout_minutes." reached
  // std::stod("."), whose std::invalid_argument escaped every reader (and a
  // value past a double, std::out_of_range).
  CHECK(framework_flags("x --distributed_timeout_minutes._a\n", "job.sh").empty());
  CHECK(framework_flags("x --distributed-timeout-minutes ...\n", "job.sh").empty());
  CHECK_THROWS_WITH(framework_flags("\nx --distributed-timeout-minutes 1.2.3\n", "job.sh"),
                    Catch::Contains("job.sh:2:") &&
                        Catch::Contains("--distributed-timeout-minutes: expected a number of "
                                        "minutes, got '1.2.3'"));
  CHECK_THROWS_AS(
      framework_flags("x --distributed-timeout-minutes " + std::string(400, '9') + "\n", "job.sh"),
      InputError);
  // The fuzzer's input, kept in the seed corpus.
  const std::string found = hn::test::read_file(
      std::string(HN_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_k8s_manifest/fuzz-timeout-flag-dot");
  REQUIRE(found.size() == 105);
  try {
    parse_k8s_manifest_text(found, "job.yaml");
  } catch (const InputError&) {
  }
}

TEST_CASE("framework flags: a Megatron-LM launch without the flag runs with its 10 minutes") {
  auto flags = framework_flags(
      "#!/bin/bash\n# --tensor-model-parallel-size 8 in a comment is not a launch\n"
      "export HCCL_CONNECT_TIMEOUT=1200\n"
      "torchrun pretrain_gpt.py \\\n  --tensor-model-parallel-size 8\n",
      "job.sh");
  REQUIRE(flags.size() == 1);
  CHECK(flags[0].defaulted);
  CHECK(flags[0].seconds == 600);
  CHECK(flags[0].where() == "job.sh:4");  // pretrain_gpt.py
  CHECK(flags[0].describe() ==
        "Megatron-LM's default --distributed-timeout-minutes 10 (no flag in the launch at "
        "job.sh:4)");
  // A flag given: that value, no default.
  auto given = framework_flags("torchrun pretrain_gpt.py --distributed-timeout-minutes 30\n", "j");
  REQUIRE(given.size() == 1);
  CHECK_FALSE(given[0].defaulted);
  CHECK(given[0].describe() == "--distributed-timeout-minutes 30 at j:1");
  // MindSpeed-LLM (its own flags in the launch) defaults to 45 minutes.
  auto msl = framework_flags(
      "torchrun pretrain_gpt.py --tensor-model-parallel-size 8 \\\n"
      "  --tokenizer-type PretrainedFromHF --use-fused-rmsnorm\n",
      "msl.sh");
  REQUIRE(msl.size() == 1);
  CHECK(msl[0].seconds == 2700);
  CHECK_THAT(msl[0].describe(), Catch::StartsWith("MindSpeed-LLM's default "
                                                  "--distributed-timeout-minutes 45"));
  // Not Megatron: nothing assumed (a word that only starts like one is not it).
  CHECK(framework_flags("torchrun train.py --micro-batch-size-x 4\n", "j").empty());
  CHECK(framework_flags("python my_pretrain_gpt.pyc\n", "j").empty());
}
