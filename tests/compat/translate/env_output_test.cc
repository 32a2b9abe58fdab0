// The written env file: deterministic, quoted where a shell needs it, and
// readable back by our own env-file parser.
#include "compat/translate/env_output.h"

#include <catch2/catch.hpp>

#include "compat/translate/shell_input.h"

using namespace hn::compat::translate;

TEST_CASE("env output: values are quoted only when a shell would interpret them") {
  CHECK(shell_quote("20") == "20");
  CHECK(shell_quote("=ens1f0") == "=ens1f0");
  CHECK(shell_quote("^docker,lo") == "^docker,lo");
  CHECK(shell_quote("60000-60031") == "60000-60031");
  CHECK(shell_quote("level0:NA;level1:ring") == "'level0:NA;level1:ring'");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_quote("") == "''");
}

TEST_CASE("env output: a header, a comment per value, and it parses back") {
  Translation t;
  t.to = "hccl";
  t.env = {{"HCCL_RDMA_TIMEOUT", "20", "NCCL_IB_TIMEOUT=23 (job.sh:20), clamped"},
           {"HCCL_ALGO", "level0:NA;level1:ring", "NCCL_ALGO=Ring (job.sh:30), converted"},
           {"X", "it's", "odd\nvalue"}};
  std::string text = render_env_file(t, "hnprecheck translate --from nccl --to hccl");
  CHECK(text ==
        "# hnprecheck translate --from nccl --to hccl\n"
        "# Only values valid for hccl are written; the report lists every input variable and what "
        "became of it.\n"
        "# <- NCCL_IB_TIMEOUT=23 (job.sh:20), clamped\n"
        "HCCL_RDMA_TIMEOUT=20\n"
        "# <- NCCL_ALGO=Ring (job.sh:30), converted\n"
        "HCCL_ALGO='level0:NA;level1:ring'\n"
        "# <- odd\\nvalue\n"
        "X='it'\\''s'\n");
  auto back = parse_shell_text(text, "out.env", ShellMode::kEnvFile);
  REQUIRE(back.size() == 3);
  CHECK(back[1].value == "level0:NA;level1:ring");
  CHECK(back[2].value == "it's");
}
