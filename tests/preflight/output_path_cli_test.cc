// Output paths as a hostile local user prepares them (issue 18): a symlink
// planted in a sticky world-writable directory, and a FIFO nobody reads.
// Before: root followed the link and replaced a file it owned; `node` and
// `translate` blocked on the FIFO past --timeout (forever for translate).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

TEST_CASE("output paths: root refuses another user's symlink in a sticky directory, exit 2") {
  if (::geteuid() != 0) hn::test::skip("needs root to plant a link owned by another user");
  hn::test::TempDir dir;
  const std::string pub = dir.path() + "/pub";
  REQUIRE(::mkdir(pub.c_str(), 0777) == 0);
  REQUIRE(::chmod(pub.c_str(), 01777) == 0);
  const std::string victim = dir.write("shadow", "root:x:0:0\n");
  const std::string link = pub + "/report.json";
  REQUIRE(::symlink(victim.c_str(), link.c_str()) == 0);
  REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);
  auto r = hn::test::run_hnprecheck({"node", "--json", link, "--timeout", "5"}, 30);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--json") && Catch::Contains("refusing to follow the symlink") &&
                        Catch::Contains("uid 65534"));
  CHECK(hn::test::read_file(victim) == "root:x:0:0\n");
}

TEST_CASE("output paths: a FIFO nobody reads ends node at --timeout with exit 3") {
  hn::test::TempDir dir;
  const std::string fifo = dir.path() + "/report.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = hn::test::run_hnprecheck({"node", "--json", fifo, "--timeout", "2"}, 30);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains(fifo) && Catch::Contains("timed out") &&
                        Catch::Contains("no process opened the FIFO"));
  // The text report was printed before the file was attempted.
  CHECK_THAT(r.out, Catch::Contains("checks:"));
}

TEST_CASE("output paths: a FIFO nobody reads ends translate (no --timeout) with exit 3") {
  hn::test::TempDir dir;
  const std::string fifo = dir.path() + "/hccl.env";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string env = dir.write("nccl.env", "NCCL_IB_TIMEOUT=20\n");
  auto r = hn::test::run_hnprecheck(
      {"translate", "--from", "nccl", "--to", "hccl", env, "--out", fifo}, 60);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("timed out") && Catch::Contains("no process opened the FIFO"));
}
