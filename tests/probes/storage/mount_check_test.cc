// Mount checks on fixture mount tables (pure) and on a local directory (live).
#include "probes/storage/mount_check.h"

#include <catch2/catch.hpp>

#include "reports/finding.h"
#include "stack/l7_physical/mountinfo.h"
#include "tests/support/temp_dir.h"

using namespace hn;
using namespace hn::probes;
using namespace hn::formats;
using hn::reports::Status;

namespace {

std::vector<stack::physical::MountEntry> fixture(const std::string& name) {
  std::string path = std::string(HN_FIXTURE_DIR) + "/mountinfo/" + name;
  return stack::physical::parse_mountinfo(hn::test::read_file(path), path);
}

MountSpec spec(const std::string& path) {
  MountSpec s;
  s.path = path;
  s.probe_dir = path;
  return s;
}

const reports::Finding* find(const std::vector<reports::Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}

std::vector<reports::Finding> judge(const MountSpec& s, const std::string& fixture_name) {
  storage::CollectingChannel ch;
  storage::judge_mount(s, stack::physical::normalize_path(s.path), fixture(fixture_name), ch);
  return ch.findings;
}

}  // namespace

TEST_CASE("a mount that matches the profile passes type, options and source") {
  MountSpec s = spec("/mnt/shared data");
  s.fstypes = {"lustre", "nfs*"};
  s.require_options = {"rw", "hard", "vers=4*", "nosuid"};
  s.forbid_options = {"soft", "ro"};
  s.source = "filer:/export/train set/";
  auto fs = judge(s, "escapes.txt");
  REQUIRE(fs.size() == 4);
  for (const auto& f : fs) {
    INFO(f.code << ": " << f.message);
    CHECK(f.status == Status::kPass);
  }
  CHECK(fs[0].code == "STOR-MOUNT-PRESENT");
  CHECK(fs[0].evidence.at("fstype") == "nfs4");
  CHECK(fs[0].message ==
        "/mnt/shared data is on the nfs4 mount of filer:/export/train set at "
        "/mnt/shared data");
}

TEST_CASE("wrong type, options and source each FAIL with what was seen") {
  MountSpec s = spec("/mnt/ro");
  s.fstypes = {"nfs4", "fuse.*"};
  s.require_options = {"rw", "hard"};
  s.forbid_options = {"soft"};
  s.source = "filer:/rw";
  auto fs = judge(s, "escapes.txt");
  const auto* type = find(fs, "STOR-MOUNT-FSTYPE");
  REQUIRE(type);
  CHECK(type->status == Status::kFail);
  CHECK(type->message == "/mnt/ro is nfs, the profile accepts nfs4,fuse.*");
  const auto* opts = find(fs, "STOR-MOUNT-OPTIONS");
  REQUIRE(opts);
  CHECK(opts->status == Status::kFail);
  CHECK(opts->evidence.at("missing") == "rw,hard");  // "rw" per mount, "ro" super: read-only
  CHECK(opts->evidence.at("present") == "soft");
  CHECK_FALSE(opts->remediation.empty());
  const auto* src = find(fs, "STOR-MOUNT-SOURCE");
  REQUIRE(src);
  CHECK(src->status == Status::kFail);
  CHECK(src->evidence.at("expected") == "filer:/rw");
}

TEST_CASE("a path that is not a mount point FAILs and stops the checks") {
  MountSpec s = spec("/mnt/shared");  // a directory on /, not "/mnt/shared data"
  s.fstypes = {"nfs4"};
  auto fs = judge(s, "escapes.txt");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "STOR-MOUNT-PRESENT");
  CHECK(fs[0].status == Status::kFail);
  CHECK(fs[0].message == "/mnt/shared is not a mount point: it lies on / (ext4 from /dev/vda)");
  // The hidden mount of hidden.txt is not there either, though it is in the table.
  auto hidden = judge(spec("/mnt/shared"), "hidden.txt");
  CHECK(hidden[0].status == Status::kFail);
  CHECK(hidden[0].evidence.at("source") == "second");
  // mountpoint: false accepts any directory and checks the mount holding it.
  s.mountpoint = false;
  s.fstypes = {"ext4"};
  fs = judge(s, "escapes.txt");
  CHECK(fs.at(0).status == Status::kPass);
  CHECK(fs.at(1).status == Status::kPass);
}

TEST_CASE("the over-mount on top is what is judged") {
  MountSpec s = spec("/mnt/shared");
  s.forbid_options = {"soft"};
  s.source = "new:/export";
  auto fs = judge(s, "overmount.txt");
  for (const auto& f : fs) {
    INFO(f.message);
    CHECK(f.status == Status::kPass);
  }
}

TEST_CASE("replaying a snapshot judges the table and skips what needs the mount") {
  MountSpec s = spec("/mnt//fuse/");
  s.fstypes = {"fuse.*"};
  s.min_free_gib = 1;
  auto fs = storage::check_mount_snapshot(s, fixture("escapes.txt"));
  REQUIRE(fs.size() == 4);
  CHECK(fs[0].status == Status::kPass);
  CHECK(fs[1].code == "STOR-MOUNT-FSTYPE");
  CHECK(fs[2].code == "STOR-MOUNT-FREE-SPACE");
  CHECK(fs[2].status == Status::kSkip);
  CHECK(fs[3].code == "STOR-MOUNT-RW");
  CHECK(fs[3].status == Status::kSkip);
  s.require_options = {"ro"};  // a mount required read-only is never written
  fs = storage::check_mount_snapshot(s, fixture("escapes.txt"));
  CHECK_FALSE(find(fs, "STOR-MOUNT-RW"));
}

TEST_CASE("live checks on a local directory: capacity, round trip, path and probe dir") {
  hn::test::TempDir dir;
  auto source = stack::physical::make_live_storage_source();
  MountSpec s = spec(dir.path());
  s.mountpoint = false;
  s.min_free_gib = 0;
  s.min_free_inodes = 1;
  storage::CollectingChannel ch;
  storage::check_mount_live(s, *source, "host", ".hnprecheck-host-1-0123456789abcdef", ch);
  for (const auto& f : ch.findings) {
    INFO(f.code << ": " << f.message);
    CHECK((f.status == Status::kPass || f.status == Status::kSkip));
  }
  const auto* rw = find(ch.findings, "STOR-MOUNT-RW");
  REQUIRE(rw);
  CHECK(rw->evidence.at("bytes") == "4096");
  CHECK(find(ch.findings, "STOR-MOUNT-FREE-SPACE"));
  CHECK(ch.last_step.rfind("unlink ", 0) == 0);

  s.min_free_gib = 1e9;
  storage::CollectingChannel full;
  storage::check_mount_live(s, *source, "host", ".hnprecheck-host-1-0123456789abcdef", full);
  CHECK(find(full.findings, "STOR-MOUNT-FREE-SPACE")->status == Status::kFail);

  storage::CollectingChannel not_mount;
  s.mountpoint = true;
  storage::check_mount_live(s, *source, "host", ".hnprecheck-host-1-0123456789abcdef", not_mount);
  REQUIRE(not_mount.findings.size() == 1);
  CHECK(not_mount.findings[0].code == "STOR-MOUNT-PRESENT");
  CHECK(not_mount.findings[0].status == Status::kFail);

  storage::CollectingChannel missing;
  storage::check_mount_live(spec(dir.path() + "/nope"), *source, "host", "x", missing);
  REQUIRE(missing.findings.size() == 1);
  CHECK(missing.findings[0].code == "STOR-PATH-MISSING");
  CHECK_THAT(missing.findings[0].message, Catch::Contains("ENOENT"));

  storage::CollectingChannel no_probe_dir;
  s.mountpoint = false;
  s.probe_dir = dir.path() + "/not-created";
  storage::check_mount_live(s, *source, "host", "x", no_probe_dir);
  const auto* rw_missing = find(no_probe_dir.findings, "STOR-MOUNT-RW");
  REQUIRE(rw_missing);
  CHECK(rw_missing->status == Status::kFail);
  CHECK(rw_missing->evidence.at("errno_name") == "ENOENT");
  CHECK_FALSE(find(no_probe_dir.findings, "STOR-PATH-MISSING"));

  storage::CollectingChannel elsewhere;
  s.mountpoint = false;
  s.probe_dir = "/proc";
  storage::check_mount_live(s, *source, "host", "x", elsewhere);
  const auto* pd = find(elsewhere.findings, "STOR-PROBE-DIR");
  REQUIRE(pd);
  CHECK(pd->status == Status::kFail);
  CHECK(pd->evidence.at("other_fstype") == "proc");
}
