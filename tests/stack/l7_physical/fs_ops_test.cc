#include "stack/l7_physical/fs_ops.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>

#include "tests/support/temp_dir.h"

using namespace hn::stack::physical;
namespace fs = std::filesystem;

namespace {
std::vector<std::string> steps;
void record(std::string_view s) {
  steps.emplace_back(s);
}

pid_t dead_pid() {
  pid_t p = fork();
  if (p == 0) _exit(0);
  waitpid(p, nullptr, 0);
  return p;
}
}  // namespace

TEST_CASE("errno names are the symbolic ones") {
  CHECK(errno_name(ESTALE) == "ESTALE");
  CHECK(errno_name(EIO) == "EIO");
  CHECK(errno_name(EROFS) == "EROFS");
  IoError e("fsync", "/mnt/x/f", ESTALE);
  CHECK(e.error() == ESTALE);
  CHECK(std::string(e.what()) == "fsync(/mnt/x/f) failed: ESTALE (Stale file handle)");
}

TEST_CASE("resolve_path and fs_capacity report errno and announce their step") {
  hn::test::TempDir dir;
  steps.clear();
  CHECK(resolve_path(dir.path() + "/./", record) == fs::canonical(dir.path()).string());
  CHECK(steps.size() == 1);
  try {
    resolve_path(dir.path() + "/missing/x", record);
    FAIL("no throw");
  } catch (const IoError& e) {
    CHECK(e.op() == "realpath");
    CHECK(e.error() == ENOENT);
  }
  FsCapacity c = fs_capacity(dir.path(), record);
  CHECK(c.total_bytes > 0);
  CHECK(c.free_bytes <= c.total_bytes);
  CHECK_THROWS_AS(fs_capacity(dir.path() + "/missing", record), IoError);
}

TEST_CASE("the read-write round trip leaves nothing behind and names the failing call") {
  hn::test::TempDir dir;
  auto bytes = GENERATE(as<size_t>{}, 0, 1, 4096, 1 << 20);
  steps.clear();
  RoundTrip rt = rw_round_trip(dir.path() + "/rt", bytes, record);
  CHECK(rt.bytes == bytes);
  CHECK(rt.seconds >= 0);
  CHECK_FALSE(fs::exists(dir.path() + "/rt"));
  CHECK(steps.front() == "create " + dir.path() + "/rt");
  CHECK(steps.back() == "unlink " + dir.path() + "/rt");
  dir.write("taken", "x");
  try {
    rw_round_trip(dir.path() + "/taken", 16, record);
    FAIL("no throw");
  } catch (const IoError& e) {
    CHECK(e.op() == "open(O_CREAT|O_EXCL)");
    CHECK(e.error() == EEXIST);
  }
  CHECK(fs::exists(dir.path() + "/taken"));  // not ours: never removed
  CHECK_THROWS_AS(rw_round_trip(dir.path() + "/no/such/dir/f", 16, record), IoError);
}

TEST_CASE("scratch names carry host and pid and parse back") {
  std::string n = scratch_name("gpu-node-17.example", 4242);
  ScratchOwner o;
  REQUIRE(parse_scratch_name(n, o));
  CHECK(o.host == "gpu-node-17.example");
  CHECK(o.pid == 4242);
  CHECK(n != scratch_name("gpu-node-17.example", 4242));
  CHECK(scratch_name("a/b", 1).find('/') == std::string::npos);
  for (const char* bad :
       {"", ".hnprecheck-", ".hnprecheck-h-12-xyz", ".hnprecheck-h-x-0123456789abcdef",
        "other-h-12-0123456789abcdef", ".hnprecheck-12-0123456789abcdef"})
    CHECK_FALSE(parse_scratch_name(bad, o));
}

TEST_CASE("stale scratch of dead runs on this host is removed, nothing else") {
  hn::test::TempDir dir;
  pid_t dead = dead_pid();
  std::string stale_dir = dir.path() + "/" + scratch_name("here", dead);
  std::string stale_file = dir.path() + "/" + scratch_name("here", dead);
  std::string alive = dir.path() + "/" + scratch_name("here", getpid());
  std::string other_host = dir.path() + "/" + scratch_name("there", dead);
  fs::create_directory(stale_dir);
  dir.write(fs::path(stale_dir).filename().string() + "/sync_write-0", "x");
  dir.write(fs::path(stale_file).filename().string(), "x");
  fs::create_directory(alive);
  fs::create_directory(other_host);
  dir.write("user-data", "keep");
  // Fresh entries are never taken: a live run in another PID namespace
  // looks dead by pid but keeps its directory fresh.
  CHECK(remove_stale_scratch(dir.path(), "here", record).empty());
  CHECK(fs::exists(stale_dir));
  auto removed = remove_stale_scratch(dir.path(), "here", record, std::chrono::seconds(0));
  CHECK(removed.size() == 2);
  CHECK_FALSE(fs::exists(stale_dir));
  CHECK_FALSE(fs::exists(stale_file));
  CHECK(fs::exists(alive));
  CHECK(fs::exists(other_host));
  CHECK(fs::exists(dir.path() + "/user-data"));
  CHECK_THROWS_AS(remove_stale_scratch(dir.path() + "/missing", "here", record), IoError);
  // An old one goes with the default age.
  std::string old = dir.path() + "/" + scratch_name("here", dead);
  fs::create_directory(old);
  fs::last_write_time(old, fs::file_time_type::clock::now() - std::chrono::hours(1));
  CHECK(remove_stale_scratch(dir.path(), "here", record).size() == 1);
  remove_scratch(alive, record);
  CHECK_FALSE(fs::exists(alive));
  remove_scratch(alive, record);  // already gone is fine
}
