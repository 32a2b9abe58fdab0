// The histogram against exact percentiles computed in closed form.
#include "stack/l7_physical/latency_histogram.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

using hn::stack::physical::LatencyHistogram;

namespace {
// The nearest-rank percentile of a sorted sample.
std::uint64_t exact(const std::vector<std::uint64_t>& sorted, double p) {
  // Integer arithmetic: rank = ceil(p * n / 100) with p in tenths of a percent.
  auto tenths = static_cast<size_t>(std::llround(p * 10));
  size_t rank = (tenths * sorted.size() + 999) / 1000;
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}
}  // namespace

TEST_CASE("bucket arithmetic is contiguous and within the error bound") {
  std::uint64_t expect_low = 0;
  for (size_t i = 0; i < 256 + 56 * 128; ++i) {
    INFO("bucket " << i);
    REQUIRE(LatencyHistogram::bucket_low(i) == expect_low);
    if (i >= 256)
      REQUIRE(LatencyHistogram::bucket_width(i) * 128 <= LatencyHistogram::bucket_low(i));
    if (i + 1 < 256 + 56 * 128) expect_low += LatencyHistogram::bucket_width(i);
  }
  for (std::uint64_t v : {0ull, 1ull, 255ull, 256ull, 257ull, 511ull, 512ull, 1000000ull,
                          123456789ull, (1ull << 63) + 5, ~0ull}) {
    size_t b = LatencyHistogram::bucket_of(v);
    CHECK(LatencyHistogram::bucket_low(b) <= v);
    CHECK(v - LatencyHistogram::bucket_low(b) < LatencyHistogram::bucket_width(b));
  }
}

TEST_CASE("the nearest rank is exact where p * n is an integer") {
  LatencyHistogram h;
  for (int i = 0; i < 999; ++i) h.record(1'000'000);  // 999 x 1 ms, then one 100 ms
  h.record(100'000'000);
  CHECK(h.percentile(99.9) == Approx(1'000'000).epsilon(0.004));  // rank 999, not 1000
  CHECK(h.percentile(99.91) == 100'000'000);                      // rank 1000
  CHECK(h.percentile(100) == 100'000'000);
}

TEST_CASE("small values are exact, and p100 is the max") {
  LatencyHistogram h;
  CHECK(h.percentile(50) == 0);
  CHECK(h.count() == 0);
  for (std::uint64_t v = 1; v <= 100; ++v) h.record(v);
  CHECK(h.percentile(50) == 50);
  CHECK(h.percentile(99) == 99);
  CHECK(h.percentile(99.9) == 100);
  CHECK(h.percentile(100) == 100);
  CHECK(h.min() == 1);
  CHECK(h.max() == 100);
  CHECK(h.mean() == Approx(50.5));
}

TEST_CASE("percentiles are within 0.4% of the exact sample, over distributions and sizes") {
  std::mt19937_64 rng(42);
  auto dist = GENERATE(as<std::string>{}, "uniform", "lognormal", "bimodal");
  auto n = GENERATE(as<size_t>{}, 1, 7, 1000, 100000);
  std::vector<std::uint64_t> xs;
  LatencyHistogram h;
  std::uniform_int_distribution<std::uint64_t> uni(1000, 50'000'000);
  std::lognormal_distribution<double> logn(12.0, 1.5);
  std::bernoulli_distribution slow(0.02);
  for (size_t i = 0; i < n; ++i) {
    std::uint64_t v = dist == "uniform"     ? uni(rng)
                      : dist == "lognormal" ? static_cast<std::uint64_t>(logn(rng))
                      : slow(rng)           ? 40'000'000 + rng() % 1000
                                            : 200'000 + rng() % 1000;
    xs.push_back(v);
    h.record(v);
  }
  std::sort(xs.begin(), xs.end());
  for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) {
    double want = static_cast<double>(exact(xs, p));
    INFO(dist << " n=" << n << " p" << p);
    CHECK(std::fabs(static_cast<double>(h.percentile(p)) - want) <=
          want * LatencyHistogram::kMaxRelativeError + 1);
  }
}

TEST_CASE("merging histograms equals recording everything into one") {
  LatencyHistogram a, b, all;
  for (std::uint64_t v = 1; v < 50000; v += 7) {
    ((v % 3) ? a : b).record(v * 1000);
    all.record(v * 1000);
  }
  a.merge(b);
  CHECK(a.count() == all.count());
  CHECK(a.min() == all.min());
  CHECK(a.max() == all.max());
  for (double p : {1.0, 50.0, 99.0, 99.9}) CHECK(a.percentile(p) == all.percentile(p));
}

TEST_CASE("encode/decode round-trips exactly and rejects a damaged text") {
  hn::stack::physical::LatencyHistogram h;
  for (std::uint64_t v : {5ull, 300ull, 70'000ull, 70'100ull, 9'000'000'000ull}) h.record(v);
  auto back = hn::stack::physical::LatencyHistogram::decode(h.encode());
  CHECK(back.count() == h.count());
  CHECK(back.min() == h.min());
  CHECK(back.max() == h.max());
  CHECK(back.mean() == h.mean());
  for (double p : {10.0, 50.0, 90.0, 99.0, 100.0}) CHECK(back.percentile(p) == h.percentile(p));
  hn::stack::physical::LatencyHistogram empty;
  CHECK(hn::stack::physical::LatencyHistogram::decode(empty.encode()).count() == 0);
  for (const char* bad : {"", "h2 1 0 0 0 0 1:1", "h1 2 0 0 0 0 1:1", "h1 1 0 0 0 0 1-1",
                          "h1 1 0 0 0 0 999999:1", "h1 1 0 0"})
    CHECK_THROWS_AS(hn::stack::physical::LatencyHistogram::decode(bad), std::invalid_argument);
}
