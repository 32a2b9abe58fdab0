// `hnprecheck snapshot --timeout`: a capture that hangs in the kernel ends by
// its deadline with exit 3, naming what it was doing, and writes nothing. The
// hang is real: the output directory is a faultfs mount whose writes take
// 20 s, while lookups (the up-front output path check) answer at once.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <string>

#include "tests/support/faultfs/faultfs_mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

TEST_CASE("snapshot: a capture that hangs past --timeout is exit 3 naming the step", "[fuse]") {
  if (auto why = hn::test::FaultFsMount::unavailable_reason(); !why.empty()) hn::test::skip(why);
  hn::test::FaultFsMount fs;
  fs.control("delay base_us=20000000 ops=write");
  const std::string out = fs.path() + "/snap.yaml";
  auto t0 = std::chrono::steady_clock::now();
  auto r = hn::test::run_process({HN_BINARY, "snapshot", "--out", out, "--timeout", "1"}, 30);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("timeout: the write of " + out) &&
                        Catch::Contains("within 1000 ms") && Catch::Contains("was not replaced"));
  CHECK(s < 5.0);  // the deadline, not the 20 s write: a bound, not a timing figure
  fs.control("delay base_us=0 ops=all");
  CHECK(access(out.c_str(), F_OK) != 0);  // nothing was written
}

TEST_CASE("snapshot: within its deadline it writes the file", "[fuse]") {
  if (auto why = hn::test::FaultFsMount::unavailable_reason(); !why.empty()) hn::test::skip(why);
  hn::test::FaultFsMount fs;
  const std::string out = fs.path() + "/snap.yaml";
  auto r = hn::test::run_process({HN_BINARY, "snapshot", "--out", out, "--timeout", "10"}, 30);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(access(out.c_str(), F_OK) == 0);
  CHECK_THAT(r.err, Catch::Contains("written to " + out));
}
