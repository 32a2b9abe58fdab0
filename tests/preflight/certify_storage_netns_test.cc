// certify's storage phase across three network namespaces, each host with
// its own mount namespace: every host's mount is measured alone and while
// the parameter plane's collective runs, merged across hosts; and a FUSE
// mount (tests/support/faultfs) that hangs on one host is named there, while
// the other hosts are still measured.

#include <catch2/catch.hpp>

#include "tests/preflight/certify_cluster.h"
#include "tests/support/faultfs/faultfs_mount.h"
#include "tests/support/skip.h"

using hn::test::CertifyOptions;
using hn::test::CertifyRun;
using hn::test::NetnsCluster;
using nlohmann::json;

namespace {

NetnsCluster make_cluster() {
  if (std::string why = NetnsCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
  if (hn::test::find_program("unshare").empty()) hn::test::skip("unshare (util-linux) is missing");
  return NetnsCluster(hn::test::certify_cluster_options(3));
}

// The cluster's profile plus a shared mount at `path`, with a short jitter run.
std::string profile_with_storage(const NetnsCluster& c, const std::string& path) {
  return c.profile_yaml() +
         "storage:\n"
         "  mounts:\n"
         "    - {path: " + path + ", timeout_s: 2}\n"
         "  jitter: {duration_s: 1, workloads: [sync_write, metadata]}\n";
}

CertifyRun certify(const NetnsCluster& c, const std::string& path,
                   const std::vector<std::string>& mounts) {
  CertifyOptions o;
  o.profile_yaml = profile_with_storage(c, path);
  // Each host mounts a tmpfs of its own: not shared, so the model phase's
  // checkpoint (written by every rank, read back by every rank) would fail,
  // rightly. Storage is what these tests are about.
  o.args = {"--sizes", "64K,1M", "--iters", "3", "--link-timeout", "2", "--skip", "model"};
  o.mount_commands = mounts;
  return hn::test::run_certify(c, o);
}

}  // namespace

TEST_CASE("certify storage: every host alone and under collective load, merged across hosts") {
  NetnsCluster c = make_cluster();
  hn::test::TempDir dir;
  const std::string path = dir.path() + "/shared";
  const std::string tmpfs = "mkdir -p " + path + " && mount -t tmpfs tmpfs " + path;
  CertifyRun r = certify(c, path, {tmpfs, tmpfs, tmpfs});
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 0);
  auto agg = r.findings("STOR-AGGREGATE", "PASS");
  REQUIRE(agg.size() == 2);  // sync_write and metadata
  for (const auto& f : agg) CHECK(f["evidence"]["hosts"] == "3");
  CHECK(r.findings("STOR-UNDER-LOAD").size() == 2);
  CHECK(r.findings("COMM-BUSBW-UNDER-LOAD").size() == 1);
  int alone = 0, under = 0;
  for (const auto& m : r.certificate["metrics"])
    if (m["name"] == "storage.p99" && m["labels"]["host"] == "all")
      (m["labels"]["condition"] == "alone" ? alone : under)++;
  CHECK(alone == 2);
  CHECK(under == 2);
  // Histograms travel between ranks but never into the report.
  for (const auto& f : r.findings("STOR-JITTER-LATENCY")) CHECK_FALSE(f["evidence"].contains("histogram"));
}

TEST_CASE("certify storage: a hanging FUSE mount on one host is named - the others are measured") {
  if (std::string why = hn::test::FaultFsMount::unavailable_reason(); !why.empty())
    hn::test::skip(why);
  NetnsCluster c = make_cluster();
  hn::test::FaultFsMount fuse({"allow_other"});
  hn::test::TempDir dir;
  const std::string path = dir.path() + "/shared";
  const std::string tmpfs = "mkdir -p " + path + " && mount -t tmpfs tmpfs " + path;
  // host1's mount is the FUSE file system, and it stops answering.
  const std::string hung = "mkdir -p " + path + " && mount --bind " + fuse.path() + " " + path;
  fuse.control("hang on");
  CertifyRun r = certify(c, path, {tmpfs, hung, tmpfs});
  fuse.control("hang off");
  INFO(r.all_output());
  CHECK(r.exit_codes[0] == 1);
  auto hang = r.findings("STOR-MOUNT-HUNG", "FAIL");
  REQUIRE(hang.size() == 1);
  CHECK(hang[0]["host"] == "host1");
  // host1's jitter run is SKIP naming the hang; the other two hosts ran it.
  bool skipped = false;
  for (const auto& f : r.findings("STOR-JITTER-LATENCY", "SKIP"))
    if (f["host"] == "host1") {
      skipped = true;
      CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("STOR-MOUNT-HUNG"));
    }
  CHECK(skipped);
  for (const auto& f : r.findings("STOR-AGGREGATE", "PASS")) CHECK(f["evidence"]["hosts"] == "2");
  CHECK(r.seconds < 60);
}
