// mountinfo parsing and "which mount covers this path", on fixture files.
#include "stack/l7_physical/mountinfo.h"

#include <catch2/catch.hpp>

#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::physical;

namespace {
std::vector<MountEntry> fixture(const std::string& name) {
  std::string path = std::string(HN_FIXTURE_DIR) + "/mountinfo/" + name;
  return parse_mountinfo(hn::test::read_file(path), path);
}
const MountEntry& at(const std::vector<MountEntry>& v, const std::string& point) {
  for (const auto& m : v)
    if (m.mount_point == point) return m;
  FAIL("no mount at " << point);
  throw;
}
}  // namespace

TEST_CASE("octal escapes are undone in every field") {
  CHECK(unescape_mount_field("a\\040b") == "a b");
  CHECK(unescape_mount_field("\\011\\012\\134") == "\t\n\\");
  CHECK(unescape_mount_field("no\\escape") == "no\\escape");  // not three octal digits
  CHECK(unescape_mount_field("\\04") == "\\04");              // truncated
  CHECK(unescape_mount_field("\\") == "\\");
  auto mounts = fixture("escapes.txt");
  REQUIRE(mounts.size() == 8);  // the blank line is skipped
  const auto& nfs = at(mounts, "/mnt/shared data");
  CHECK(nfs.source == "filer:/export/train set");
  CHECK(nfs.fstype == "nfs4");
  CHECK(nfs.mount_id == 60);
  CHECK(nfs.parent_id == 27);
  CHECK(nfs.major_minor == "0:53");
  CHECK(nfs.optional_fields == std::vector<std::string>{"shared:7", "master:3"});
  CHECK(nfs.mount_options == std::vector<std::string>{"rw", "nosuid", "nodev", "relatime"});
  CHECK(nfs.super_options.size() == 9);
  CHECK(nfs.super_options.at(7) == "retrans=2");
  CHECK(at(mounts, "/mnt/tab\tand\\back").fstype == "tmpfs");
  CHECK(at(mounts, "/mnt/newline\nname").source == "none at all");
  CHECK(at(mounts, "/mnt/fuse").fstype == "fuse.faultfs");
}

TEST_CASE("bind mounts keep the root they show, options and read-only state") {
  auto mounts = fixture("escapes.txt");
  const auto& bind = at(mounts, "/mnt/bind");
  CHECK(bind.root == "/srv/data");
  CHECK(bind.source == "/dev/vda");
  const auto& ro = at(mounts, "/mnt/ro");
  CHECK(ro.mount_options.front() == "rw");
  CHECK(is_read_only(ro));  // read-only in the super block only
  CHECK_FALSE(is_read_only(bind));
  auto eff = effective_options(ro);
  CHECK(eff == std::vector<std::string>{"rw", "relatime", "ro", "vers=3", "soft"});
}

TEST_CASE("the covering mount is the longest prefix, on component boundaries") {
  auto mounts = fixture("escapes.txt");
  CHECK(covering_mount(mounts, "/mnt/shared data")->mount_id == 60);
  CHECK(covering_mount(mounts, "/mnt/shared data/ckpt/step1")->mount_id == 60);
  CHECK(covering_mount(mounts, "/mnt/shared")->mount_point == "/");  // not "/mnt/shared data"
  CHECK(covering_mount(mounts, "/mnt/fuse/x")->fstype == "fuse.faultfs");
  CHECK(covering_mount(mounts, "/")->mount_point == "/");
  CHECK(covering_mount(mounts, "/etc/hosts")->mount_point == "/");
  CHECK(covering_mount(mounts, "relative") == nullptr);
  CHECK(covering_mount({}, "/x") == nullptr);
}

TEST_CASE("over-mounts: the mount on top of the stack counts") {
  auto mounts = fixture("overmount.txt");
  const MountEntry* m = covering_mount(mounts, "/mnt/shared/ckpt");
  REQUIRE(m);
  CHECK(m->mount_id == 41);
  CHECK(m->source == "new:/export");
  CHECK(covering_mount(mounts, "/mnt/sharedx")->mount_id == 42);
  // Table order does not decide: the parent ids do.
  std::swap(mounts[1], mounts[2]);
  CHECK(covering_mount(mounts, "/mnt/shared")->mount_id == 41);
}

TEST_CASE("a mount hidden by an over-mount of its parent does not count") {
  auto mounts = fixture("hidden.txt");
  const MountEntry* m = covering_mount(mounts, "/mnt/shared/x");
  REQUIRE(m);
  CHECK(m->mount_id == 52);
  CHECK(m->source == "second");
}

TEST_CASE("without consistent ids the last longest prefix counts") {
  auto mounts = fixture("overmount.txt");
  for (auto& m : mounts) m.mount_id = m.parent_id = 0;  // hand-written snapshots
  CHECK(covering_mount(mounts, "/mnt/shared/a")->source == "new:/export");
}

TEST_CASE("malformed mountinfo is a SourceError naming the line") {
  std::string path = std::string(HN_FIXTURE_DIR) + "/mountinfo/malformed.txt";
  CHECK_THROWS_WITH(parse_mountinfo(hn::test::read_file(path), path),
                    Catch::Contains("malformed.txt:3: not a mountinfo line"));
  CHECK_THROWS_AS(parse_mountinfo("x 1 0:1 / / rw - ext4 /dev/a rw\n", "m"), SourceError);
  CHECK_THROWS_WITH(parse_mountinfo("1 1 01 / / rw - ext4 /dev/a rw\n", "m"),
                    Catch::Contains("major:minor"));
  CHECK_THROWS_WITH(parse_mountinfo("1 1 0:1 / rel rw - ext4 /dev/a rw\n", "m"),
                    Catch::Contains("not absolute"));
}

TEST_CASE("paths normalise lexically") {
  CHECK(normalize_path("/mnt//shared/./a/../b/") == "/mnt/shared/b");
  CHECK(normalize_path("/..") == "/");
  CHECK(normalize_path("/") == "/");
  CHECK(path_has_prefix("/mnt/a/b", "/mnt/a"));
  CHECK(path_has_prefix("/mnt/a", "/mnt/a"));
  CHECK_FALSE(path_has_prefix("/mnt/ab", "/mnt/a"));
  CHECK(path_has_prefix("/anything", "/"));
}

TEST_CASE("the live source reads this process's mount table and the root covers /") {
  auto src = make_live_storage_source();
  auto mounts = src->mounts();
  REQUIRE_FALSE(mounts.empty());
  const MountEntry* root = covering_mount(mounts, "/");
  REQUIRE(root);
  CHECK(root->mount_point == "/");
  CHECK(covering_mount(mounts, "/proc/self")->fstype == "proc");
  hn::test::TempDir dir;
  CHECK_THROWS_AS(make_live_storage_source(dir.path())->mounts(), SourceError);
}
