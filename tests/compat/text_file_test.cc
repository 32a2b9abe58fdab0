#include "compat/text_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/support/temp_dir.h"

using hn::compat::read_text_file;

TEST_CASE("read_text_file reads whole files and names the path on failure") {
  hn::test::TempDir dir;
  std::string p = dir.write("a.txt", std::string("x\0y", 3));
  CHECK(read_text_file(p) == std::string("x\0y", 3));
  CHECK(read_text_file(dir.write("empty.txt", "")).empty());
  CHECK_THROWS_AS(read_text_file(dir.path() + "/missing"), hn::compat::InputError);
  CHECK_THROWS_WITH(read_text_file(dir.path() + "/missing"), Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(read_text_file(dir.path()), Catch::Contains("is a directory"));
  CHECK_THROWS_WITH(read_text_file(""), Catch::Contains("expected a file path"));
}

TEST_CASE("read_text_file follows a symlink to a regular file") {
  hn::test::TempDir dir;
  std::string p = dir.write("real.txt", "content");
  std::string link = dir.path() + "/link.txt";
  REQUIRE(::symlink(p.c_str(), link.c_str()) == 0);
  CHECK(read_text_file(link) == "content");
}

TEST_CASE("read_text_file refuses a FIFO at once instead of waiting for a writer") {
  hn::test::TempDir dir;
  std::string fifo = dir.path() + "/pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Before the fix this open() blocked forever (no writer ever comes).
  CHECK_THROWS_WITH(read_text_file(fifo),
                    Catch::Contains(fifo + ": is a FIFO") && Catch::Contains("regular file"));
}

TEST_CASE("read_text_file refuses devices that never end") {
  // /dev/zero used to be read until memory ran out.
  CHECK_THROWS_WITH(read_text_file("/dev/zero"),
                    Catch::Contains("/dev/zero: is a character device"));
  CHECK_THROWS_WITH(read_text_file("/dev/null"), Catch::Contains("is a character device"));
}

TEST_CASE("read_text_file caps the size") {
  hn::test::TempDir dir;
  std::string p = dir.write("big.txt", std::string(100, 'x'));
  CHECK(read_text_file(p, 100).size() == 100);
  CHECK_THROWS_WITH(read_text_file(p, 99),
                    Catch::Contains("file too large (100 bytes; the limit is 99 bytes)"));
  CHECK(hn::compat::kMaxInputBytes == 64u << 20);
  // A sparse 65 MiB file costs no disk but is over the default limit.
  std::string sparse = dir.path() + "/sparse.yaml";
  { REQUIRE(::truncate(dir.write("sparse.yaml", "").c_str(), (65ll << 20)) == 0); }
  CHECK_THROWS_WITH(read_text_file(sparse), Catch::Contains("the limit is 64 MiB"));
}
