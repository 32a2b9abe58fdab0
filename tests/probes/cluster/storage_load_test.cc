#include "probes/cluster/storage_load.h"

#include <catch2/catch.hpp>

using namespace hn;
using probes::cluster::StorageRuns;
using reports::Status;
using stack::physical::LatencyHistogram;

namespace {

reports::Finding latency(const std::string& host, const std::string& workload,
                         std::uint64_t base_ns, int n) {
  LatencyHistogram h;
  for (int i = 0; i < n; ++i) h.record(base_ns + static_cast<std::uint64_t>(i) * 1000);
  reports::Finding f;
  f.code = "STOR-JITTER-LATENCY";
  f.host = host;
  f.evidence = {{"path", "/mnt/shared"}, {"workload", workload}, {"histogram", h.encode()}};
  return f;
}

}  // namespace

TEST_CASE("storage: hosts' histograms merge exactly into the aggregate") {
  StorageRuns runs;
  auto a = latency("h0", "sync_write", 1'000'000, 100);
  auto b = latency("h1", "sync_write", 5'000'000, 100);
  REQUIRE(probes::cluster::take_histogram(a, "alone", runs));
  REQUIRE(probes::cluster::take_histogram(b, "alone", runs));
  CHECK_FALSE(a.evidence.count("histogram"));  // moved out of the finding
  reports::Finding other;
  other.code = "STOR-JITTER-P99";
  CHECK_FALSE(probes::cluster::take_histogram(other, "alone", runs));
  auto agg = probes::cluster::aggregate_storage(runs, "storage");
  REQUIRE(agg.findings.size() == 1);
  const auto& f = agg.findings[0];
  CHECK(f.code == "STOR-AGGREGATE");
  CHECK(f.evidence.at("samples") == "200");
  CHECK(f.evidence.at("worst_host") == "h1");
  // The merged p50 lies between the hosts: h0's samples are all below h1's.
  CHECK(f.metrics.at("p50").value == Approx(1.099).epsilon(0.01));
  CHECK(f.metrics.at("p99").value == Approx(5.098).epsilon(0.01));
}

TEST_CASE("storage: p99 under load against alone, judged by storage.interference") {
  StorageRuns runs;
  auto a = latency("h0", "metadata", 1'000'000, 200);
  auto u = latency("h0", "metadata", 8'000'000, 200);
  probes::cluster::take_histogram(a, "alone", runs);
  probes::cluster::take_histogram(u, "under_load", runs);
  formats::InterferenceLimits warn, fail;
  auto none = probes::cluster::compare_under_load(runs, "param", warn, fail, "storage");
  REQUIRE(none.findings.size() == 1);
  CHECK(none.findings[0].status == Status::kPass);  // no limit set: reported, not judged
  CHECK_THAT(none.findings[0].message, Catch::Contains("no limit"));
  warn.p99_ratio = 2;
  fail.p99_ratio = 4;
  auto judged = probes::cluster::compare_under_load(runs, "param", warn, fail, "storage");
  CHECK(judged.findings[0].status == Status::kFail);
  CHECK(judged.findings[0].evidence.at("level") == "fail");
  fail.p99_ratio = 10;
  CHECK(probes::cluster::compare_under_load(runs, "param", warn, fail, "storage")
            .findings[0]
            .status == Status::kWarn);
}

TEST_CASE("storage: busbw under storage load against alone") {
  formats::InterferenceLimits warn, fail;
  warn.busbw_ratio = 0.8;
  fail.busbw_ratio = 0.5;
  auto ok = probes::cluster::compare_busbw("param", "allreduce", 16 << 20, 10, 9, warn, fail, "s");
  CHECK(ok.findings[0].status == Status::kPass);
  auto bad = probes::cluster::compare_busbw("param", "allreduce", 16 << 20, 10, 4, warn, fail, "s");
  CHECK(bad.findings[0].status == Status::kFail);
  CHECK(bad.findings[0].code == "COMM-BUSBW-UNDER-LOAD");
  CHECK(bad.metrics[0].labels.at("condition") == "under_storage_load");
}

TEST_CASE("storage: a malformed histogram is an error, not a silent zero") {
  StorageRuns runs;
  auto f = latency("h0", "metadata", 1000, 3);
  f.evidence["histogram"] = "h1 3 0 0 0 0 5:1";
  CHECK_THROWS_AS(probes::cluster::take_histogram(f, "alone", runs), std::invalid_argument);
}
