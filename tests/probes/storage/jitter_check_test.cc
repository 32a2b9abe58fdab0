// Jitter findings from histograms whose percentiles are known in closed form.
#include "probes/storage/jitter_check.h"

#include <catch2/catch.hpp>

using namespace hn;
using namespace hn::probes;
using namespace hn::formats;
using hn::reports::Status;
using stack::physical::Workload;
using stack::physical::WorkloadResult;

namespace {

// n_fast samples of fast_ms and n_slow of slow_ms.
WorkloadResult result(Workload w, int n_fast, double fast_ms, int n_slow, double slow_ms) {
  WorkloadResult r;
  r.workload = w;
  for (int i = 0; i < n_fast; ++i) r.latency.record(static_cast<std::uint64_t>(fast_ms * 1e6));
  for (int i = 0; i < n_slow; ++i) r.latency.record(static_cast<std::uint64_t>(slow_ms * 1e6));
  r.ops = static_cast<std::uint64_t>(n_fast + n_slow);
  r.seconds = 1;
  r.stopped_by = "time";
  return r;
}

const reports::Finding& get(const std::vector<reports::Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return f;
  FAIL("no " << code);
  throw;
}

}  // namespace

TEST_CASE("percentile limits give PASS, WARN and FAIL with the measured values") {
  JitterSpec j;  // defaults: warn p99 20 / p99.9 50, fail p99 100 / p99.9 500
  struct Case {
    int slow;  // of 1000 samples; the rest take 1 ms
    double slow_ms;
    Status p99, p999;
  };
  auto c = GENERATE(Case{0, 0, Status::kPass, Status::kPass},
                    Case{5, 40, Status::kPass, Status::kPass},     // p99 1 ms, p99.9 40 ms
                    Case{20, 40, Status::kWarn, Status::kPass},    // p99 40 ms
                    Case{20, 200, Status::kFail, Status::kWarn},   // 200 ms
                    Case{2, 1000, Status::kPass, Status::kFail});  // p99.9 1 s
  auto fs = storage::workload_findings(
      "/mnt/s", j, result(Workload::kSyncWrite, 1000 - c.slow, 1, c.slow, c.slow_ms));
  REQUIRE(fs.size() == 3);  // summary + p99 + p99.9
  CHECK(fs[0].code == "STOR-JITTER-LATENCY");
  CHECK(fs[0].entity == "/mnt/s sync_write");
  const auto& p99 = get(fs, "STOR-JITTER-P99");
  const auto& p999 = get(fs, "STOR-JITTER-P999");
  CHECK(p99.status == c.p99);
  CHECK(p999.status == c.p999);
  double want99 = c.slow >= 11 ? c.slow_ms : 1.0;
  double want999 = c.slow >= 2 ? c.slow_ms : 1.0;
  CHECK(p99.metrics.at("p99").value == Approx(want99).epsilon(0.005));
  CHECK(p999.metrics.at("p999").value == Approx(want999).epsilon(0.005));
  CHECK(p99.metrics.at("samples").value == 1000);
  CHECK(p99.metrics.at("tail_ratio").value == Approx(want999 / 1.0).epsilon(0.01));
  if (c.p99 == Status::kWarn) {
    CHECK(p99.evidence.at("level") == "warn");
    CHECK(p99.evidence.at("limit_ms") == "20.0");
    CHECK_THAT(p99.message, Catch::Contains("exceeds the warn limit of 20.0 ms"));
  }
}

TEST_CASE("every configured statistic gets a finding, tail ratio included") {
  JitterSpec j;
  j.warn = LatencyLimits{};
  j.fail = LatencyLimits{};
  j.warn.p50_ms = 0.5;
  j.fail.p90_ms = 10;
  j.warn.max_ms = 100;
  j.fail.tail_ratio = 30;
  auto fs = storage::workload_findings("/m", j, result(Workload::kMetadata, 995, 1, 5, 50));
  REQUIRE(fs.size() == 5);
  CHECK(get(fs, "STOR-JITTER-P50").status == Status::kWarn);  // 1 ms > 0.5
  CHECK(get(fs, "STOR-JITTER-P90").status == Status::kPass);
  CHECK(get(fs, "STOR-JITTER-MAX").status == Status::kPass);
  const auto& tail = get(fs, "STOR-JITTER-TAIL");
  CHECK(tail.status == Status::kFail);  // p99.9/p50 = 50
  CHECK(tail.evidence.at("limit") == "30.0");
}

TEST_CASE("no completed operation is a WARN, not a division by zero") {
  auto fs =
      storage::workload_findings("/m", JitterSpec{}, result(Workload::kRandomRead, 0, 0, 0, 0));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].status == Status::kWarn);
  CHECK(fs[0].code == "STOR-JITTER-LATENCY");
}

TEST_CASE("checkpoint throughput against minimums and the save/load estimate") {
  JitterSpec j;
  j.checkpoint_estimate_gib = 10;
  j.fail.write_mbps = 150;
  j.warn.read_mbps = 150;
  WorkloadResult r = result(Workload::kCheckpoint, 10, 5, 0, 0);
  r.bytes_written = r.bytes_read = 64ull << 20;
  r.write_mbps = 100;
  r.read_mbps = 200;
  r.direct = true;
  auto fs = storage::workload_findings("/m", j, r);
  REQUIRE(fs.size() == 3);
  CHECK(get(fs, "STOR-CHECKPOINT-WRITE").status == Status::kFail);
  CHECK(get(fs, "STOR-CHECKPOINT-READ").status == Status::kPass);
  const auto& est = get(fs, "STOR-CHECKPOINT-ESTIMATE");
  CHECK(est.status == Status::kPass);
  CHECK(est.metrics.at("save").value == Approx(10.0 * (1ull << 30) / 100e6));
  CHECK(est.metrics.at("load").value == Approx(10.0 * (1ull << 30) / 200e6));
  CHECK(est.message ==
        "a 10.0 GiB checkpoint on /m would save in about 107 s and load in about "
        "53.7 s (measured 100 MB/s write, 200 MB/s read)");
  r.write_mbps = 0;
  CHECK(get(storage::workload_findings("/m", j, r), "STOR-CHECKPOINT-ESTIMATE").status ==
        Status::kSkip);
}

TEST_CASE("a checkpoint capped by max_bytes passes and says it wrote less than asked") {
  JitterSpec j;
  WorkloadResult r = result(Workload::kCheckpoint, 32, 5, 0, 0);
  r.requested_bytes = 1ull << 30;   // checkpoint_size: 1GiB
  r.max_bytes_share = 16ull << 20;  // max_bytes: 16MiB, the only writing workload
  r.bytes_written = r.bytes_read = 16ull << 20;
  r.stopped_by = "done";
  r.write_mbps = 100;
  r.read_mbps = 200;
  r.direct = true;
  auto fs = storage::workload_findings("/m", j, r);
  const auto& w = get(fs, "STOR-CHECKPOINT-WRITE");
  CHECK(w.status == Status::kPass);  // a cap the profile sets is not a fault of the mount
  CHECK(w.message ==
        "checkpoint on /m: wrote 16.0 MiB of the requested 1 GiB (capped by max_bytes) at 100 "
        "MB/s including fsync (warn below none, fail below none)");
  CHECK(w.evidence.at("requested_bytes") == "1073741824");
  CHECK(w.evidence.at("written_bytes") == "16777216");
  CHECK(w.evidence.at("max_bytes_share") == "16777216");
  CHECK(w.evidence.at("capped_by") == "max_bytes");
  CHECK(get(fs, "STOR-CHECKPOINT-READ").evidence.at("capped_by") == "max_bytes");

  // Below a minimum the cap is still named, next to the WARN or FAIL.
  j.warn.write_mbps = 150;
  CHECK(get(storage::workload_findings("/m", j, r), "STOR-CHECKPOINT-WRITE").message ==
        "checkpoint on /m: wrote 16.0 MiB of the requested 1 GiB (capped by max_bytes) at 100 "
        "MB/s, below the warn minimum of 150 MB/s");
  j.warn.write_mbps.reset();

  // Cut short by its time share.
  r.requested_bytes = 64ull << 20;
  r.max_bytes_share = 256ull << 20;
  r.stopped_by = "time";
  auto timed = storage::workload_findings("/m", j, r);
  const auto& t = get(timed, "STOR-CHECKPOINT-WRITE");
  CHECK(t.status == Status::kPass);
  CHECK_THAT(t.message,
             Catch::Contains("wrote 16.0 MiB of the requested 64 MiB (its time share ran out "
                             "first)"));
  CHECK(t.evidence.at("capped_by") == "time");

  // All of it: nothing to say.
  r.bytes_written = r.bytes_read = 64ull << 20;
  r.stopped_by = "done";
  auto whole = storage::workload_findings("/m", j, r);
  const auto& all = get(whole, "STOR-CHECKPOINT-WRITE");
  CHECK(all.message ==
        "checkpoint on /m: wrote 64.0 MiB at 100 MB/s including fsync (warn below none, fail "
        "below none)");
  CHECK(all.evidence.at("capped_by") == "none");
}

TEST_CASE("the profile's jitter section maps onto the workload config") {
  JitterSpec j;
  j.workloads = {"metadata", "checkpoint"};
  j.sync = "dsync";
  j.threads = 3;
  j.duration_s = 1.5;
  auto c = storage::workload_config(j);
  CHECK(c.workloads == std::vector<Workload>{Workload::kMetadata, Workload::kCheckpoint});
  CHECK(c.sync == stack::physical::SyncMode::kDsync);
  CHECK(c.threads == 3);
  CHECK(c.duration.count() == 1.5);
}
