#include "compat/text_file.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/support/temp_dir.h"

TEST_CASE("read_text_file reads whole files and names the path on failure") {
  hn::test::TempDir dir;
  std::string p = dir.write("a.txt", std::string("x\0y", 3));
  CHECK(hn::compat::read_text_file(p) == std::string("x\0y", 3));
  CHECK_THROWS_AS(hn::compat::read_text_file(dir.path() + "/missing"), hn::compat::InputError);
  CHECK_THROWS_WITH(hn::compat::read_text_file(dir.path()), Catch::Contains("is a directory"));
}
