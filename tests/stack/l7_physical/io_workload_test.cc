// The jitter workload on a local directory: counts, bounds and clean-up.
// Timing values are never asserted; the FUSE tests check latencies against
// injected delays.
#include "stack/l7_physical/io_workload.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/temp_dir.h"

using namespace hn::stack::physical;
namespace fs = std::filesystem;

namespace {
bool empty_dir(const std::string& p) {
  return fs::is_empty(p);
}
void no_step(std::string_view) {}
}  // namespace

TEST_CASE("every workload runs, records one sample per operation and cleans up") {
  hn::test::TempDir dir;
  WorkloadConfig c;
  c.duration = std::chrono::milliseconds(800);
  c.threads = GENERATE(1, 2);
  c.sync = GENERATE(SyncMode::kFsync, SyncMode::kDsync);
  c.checkpoint_bytes = 4 << 20;
  c.read_file_bytes = 1 << 20;
  std::vector<std::string> steps, done;
  auto results = run_workloads(
      c, dir.path(), [&](std::string_view s) { steps.emplace_back(s); },
      [&](const WorkloadResult& r) { done.emplace_back(to_string(r.workload)); });
  REQUIRE(results.size() == 4);
  CHECK(done == std::vector<std::string>{"sync_write", "random_read", "metadata", "checkpoint"});
  CHECK(steps.size() == 4);
  CHECK(steps[0].rfind("sync_write: ", 0) == 0);
  for (const auto& r : results) {
    INFO(to_string(r.workload));
    CHECK(r.ops > 0);
    CHECK(r.latency.count() == r.ops);
    CHECK(r.latency.max() >= r.latency.percentile(50));
    CHECK(r.seconds > 0);
  }
  CHECK(results[0].bytes_written == results[0].ops * c.block_bytes);
  CHECK(results[1].bytes_read == results[1].ops * c.block_bytes);
  // Per thread, preparing then reading fits in the phase; the maxima over
  // threads come from different threads, so only each one alone is bounded.
  CHECK(results[1].write_seconds <= results[1].seconds);
  CHECK(results[1].read_seconds <= results[1].seconds);
  CHECK(results[2].ops % 3 == 0);
  const auto& ck = results[3];
  CHECK(ck.bytes_written > 0);
  CHECK(ck.bytes_read == ck.bytes_written);
  CHECK(ck.write_mbps > 0);
  CHECK(ck.read_mbps > 0);
  CHECK(empty_dir(dir.path()));
}

TEST_CASE("bytes bound the run: each writing workload gets an equal share") {
  hn::test::TempDir dir;
  WorkloadConfig c;
  c.workloads = {Workload::kSyncWrite, Workload::kMetadata};
  c.duration = std::chrono::seconds(20);  // never reached
  c.max_bytes = 64 * 1024;
  c.block_bytes = 4096;
  c.threads = GENERATE(1, 4);
  c.workloads = {Workload::kSyncWrite};
  auto r = run_workloads(c, dir.path(), no_step);
  REQUIRE(r.size() == 1);
  CHECK(r[0].stopped_by == "bytes");
  CHECK(r[0].bytes_written == 64 * 1024);
  CHECK(r[0].ops == 16);
  CHECK(empty_dir(dir.path()));
}

TEST_CASE("the checkpoint writes its size and reads it back") {
  hn::test::TempDir dir;
  WorkloadConfig c;
  c.workloads = {Workload::kCheckpoint};
  c.duration = std::chrono::seconds(20);
  c.checkpoint_bytes = 3 << 20;
  auto r = run_workloads(c, dir.path(), no_step);
  CHECK(r[0].stopped_by == "done");
  CHECK(r[0].bytes_written == (3u << 20));
  CHECK(r[0].bytes_read == (3u << 20));
  CHECK(r[0].ops == 6);  // 3 x 1 MiB written, 3 read
  CHECK(r[0].requested_bytes == (3u << 20));
  CHECK(r[0].max_bytes_share == c.max_bytes);
}

TEST_CASE("max_bytes caps the checkpoint below its size, and the result says both") {
  hn::test::TempDir dir;
  WorkloadConfig c;
  c.workloads = {Workload::kCheckpoint, Workload::kMetadata};
  c.duration = std::chrono::seconds(20);
  c.checkpoint_bytes = 1ull << 30;
  c.max_bytes = 16ull << 20;
  auto r = run_workloads(c, dir.path(), no_step);
  REQUIRE(r.size() == 2);
  CHECK(r[0].stopped_by == "done");  // reached the capped size, not the time
  CHECK(r[0].bytes_written == (16u << 20));
  CHECK(r[0].requested_bytes == (1ull << 30));
  CHECK(r[0].max_bytes_share == (16u << 20));  // the only writing workload
  CHECK(empty_dir(dir.path()));
}

TEST_CASE("a failing call is an IoError naming it, nothing is left behind") {
  hn::test::TempDir dir;
  WorkloadConfig c;
  c.duration = std::chrono::milliseconds(100);
  try {
    run_workloads(c, dir.path() + "/missing", no_step);
    FAIL("no throw");
  } catch (const IoError& e) {
    CHECK(e.error() == ENOENT);
    CHECK(e.op() == "open(O_CREAT|O_EXCL)");
    CHECK(e.path() == dir.path() + "/missing/sync_write-0");
  }
  CHECK_THROWS_AS(workload_from_string("seq_write"), std::invalid_argument);
  CHECK(workload_from_string("metadata") == Workload::kMetadata);
  c.threads = 0;
  CHECK_THROWS_AS(run_workloads(c, dir.path(), no_step), std::invalid_argument);
}
