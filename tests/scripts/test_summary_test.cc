// scripts/test-summary reads what ctest really writes (--output-junit of a
// small ctest project made here) and must list every skip with its reason,
// flag a skip without one, and close on "tests: N passed, N failed, N skipped".

#include <catch2/catch.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;

namespace {

const std::string kSource = HN_SOURCE_DIR;

// A ctest project whose tests pass, fail, skip with a reason (the way
// tests/support/skip.h does) and skip without one.
std::string run_ctest(const hn::test::TempDir& t) {
  t.write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(summary NONE)
enable_testing()
add_test(NAME "fs:mount <hangs> & recovers" COMMAND sh -c "echo 'Filters: x'; echo 'SKIPPED: needs root & /dev/fuse'; exit 77")
add_test(NAME "quiet:skip" COMMAND sh -c "exit 77")
set_tests_properties("fs:mount <hangs> & recovers" "quiet:skip" PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME "bad:fails" COMMAND sh -c "exit 1")
add_test(NAME "good:passes" COMMAND true)
add_test(NAME "good:passes too" COMMAND true)
)");
  auto cfg = run_process({"/usr/bin/cmake", "-S", t.path(), "-B", t.path() + "/b"}, 120);
  REQUIRE(cfg.exit_code == 0);
  const std::string junit = t.path() + "/junit.xml";
  auto ct =
      run_process({"/usr/bin/ctest", "--test-dir", t.path() + "/b", "--output-junit", junit}, 120);
  REQUIRE(ct.exit_code != 0);  // one test fails
  return junit;
}

}  // namespace

TEST_CASE("test-summary: every skip with its reason, then the closing line") {
  hn::test::TempDir t;
  auto r = run_process({kSource + "/scripts/test-summary", run_ctest(t)}, 60);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Skipped (2), each with its reason:\n"
                   "  fs:mount <hangs> & recovers\n      needs root & /dev/fuse\n") !=
        std::string::npos);
  CHECK(r.out.find("  quiet:skip\n      NO REASON GIVEN") != std::string::npos);
  // The last line, where a person (and CI) reads it.
  CHECK(r.out.size() > 40);
  CHECK(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1) ==
        "tests: 2 passed, 1 failed, 2 skipped\n");
}

TEST_CASE("test-summary: a missing or malformed file is exit 2, naming it") {
  hn::test::TempDir t;
  auto missing = run_process({kSource + "/scripts/test-summary", t.path() + "/none.xml"}, 60);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("none.xml does not exist") != std::string::npos);
  auto bad =
      run_process({kSource + "/scripts/test-summary", t.write("bad.xml", "<testsuite>")}, 60);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.xml is not well-formed XML") != std::string::npos);
}
