// Input format detection, file reading and the process environment.
#include "compat/translate/env_input.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/support/temp_dir.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

TEST_CASE("env input: the format follows the extension, then the content") {
  CHECK(detect_format("job.yaml", "") == InputFormat::kManifest);
  CHECK(detect_format("job.yml", "") == InputFormat::kManifest);
  CHECK(detect_format("job.json", "") == InputFormat::kManifest);
  CHECK(detect_format("nccl.env", "") == InputFormat::kEnvFile);
  CHECK(detect_format("launch.sbatch", "#!/bin/bash\n") == InputFormat::kScript);
  CHECK(detect_format("noext", "\n  apiVersion: v1\nkind: Pod\n") == InputFormat::kManifest);
  CHECK(detect_format("noext", "---\nkind: Pod\n") == InputFormat::kManifest);
  CHECK(detect_format("noext", "A=1\n") == InputFormat::kScript);
  CHECK(input_format_from_string("k8s") == InputFormat::kManifest);
  CHECK(input_format_from_string("env") == InputFormat::kEnvFile);
  CHECK_THROWS_WITH(input_format_from_string("xml"),
                    Catch::Contains("--format: unknown format 'xml'"));
}

TEST_CASE("env input: files are read in their format, a missing file names the path") {
  hn::test::TempDir dir;
  std::string env = dir.write("a.env", "A=1\n");
  std::string sh = dir.write("a.sh", "A=1 cmd\n");
  std::string k8s =
      dir.write("a.yaml", "spec:\n  containers:\n    - {name: c, env: [{name: A, value: '1'}]}\n");
  for (const auto& path : {env, sh, k8s}) {
    auto es = read_env_input(path, InputFormat::kAuto);
    REQUIRE(es.size() == 1);
    CHECK(es[0].file == path);
    CHECK(es[0].value == "1");
  }
  CHECK_THROWS_AS(read_env_input(sh, InputFormat::kEnvFile), InputError);
  // Read as a script, A=1 is a shell variable that nothing exports.
  CHECK(read_env_input(env, InputFormat::kScript).empty());
  CHECK_THROWS_WITH(read_env_input(dir.path() + "/missing.env", InputFormat::kAuto),
                    Catch::Contains("missing.env: cannot open"));
}

TEST_CASE("env input: the environment, split at the first '='") {
  char a[] = "NCCL_DEBUG=INFO", b[] = "X=a=b", c[] = "NOEQUALS", d[] = "=bad", e[] = "EMPTY=";
  char* envp[] = {a, b, c, d, e, nullptr};
  auto es = entries_from_environment(envp);
  REQUIRE(es.size() == 3);
  CHECK(es[0].name == "NCCL_DEBUG");
  CHECK(es[0].value == "INFO");
  CHECK(es[0].where() == "environment");
  CHECK(es[1].value == "a=b");
  CHECK(es[2].value.empty());
}
