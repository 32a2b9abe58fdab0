#include "gate/stats.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <type_traits>

using namespace hn::gate;
using hn::reports::Better;

namespace {

// A series around `centre` with a given relative spread, deterministic.
std::vector<double> series(double centre, double rel_sd, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0, rel_sd * centre);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre + noise(gen));
  return v;
}

}  // namespace

TEST_CASE("median and MAD as R computes them") {
  // R: median(c(1,2,3,4,100)) = 3; mad(c(1,2,3,4,100)) = 1.4826 * median(|x-3|) = 1.4826 * 1
  const std::vector<double> x = {1, 2, 3, 4, 100};
  CHECK(median(x) == 3);
  CHECK(scaled_mad(x, 3) == Approx(1.4826));
  // Even count: the mean of the two middle values. R: median(c(4,1,3,2)) = 2.5
  CHECK(median(std::vector<double>{4, 1, 3, 2}) == 2.5);
  // R: mad(c(4,1,3,2)) = 1.4826 * median(1.5, 1.5, 0.5, 0.5) = 1.4826
  CHECK(scaled_mad(std::vector<double>{4, 1, 3, 2}, 2.5) == Approx(1.4826));
  // One value: spread 0 (R's mad(5) is 0).
  Spread one = summarize(std::vector<double>{5});
  CHECK(one.centre == 5);
  CHECK(one.spread == 0);
  CHECK(one.n == 1);
  // The outlier moves neither the centre nor the spread much: that is why.
  Spread s = summarize(x);
  CHECK(s.min == 1);
  CHECK(s.max == 100);
}

TEST_CASE("MAD estimates the standard deviation of normal data") {
  auto v = series(100, 0.05, 4001, 7);  // sd 5
  Spread s = summarize(v);
  CHECK(s.centre == Approx(100).margin(0.5));
  CHECK(s.spread == Approx(5).epsilon(0.05));
}

TEST_CASE("summaries refuse what they cannot order") {
  CHECK_THROWS_AS(median(std::vector<double>{}), std::invalid_argument);
  CHECK_THROWS_AS(median(std::vector<double>{1, NAN}), std::invalid_argument);
  CHECK_THROWS_AS(summarize(std::vector<double>{INFINITY}), std::invalid_argument);
}

TEST_CASE("a noisy metric with a small drift does not fail") {
  // busbw around 10 GB/s with an 8 % sd; the new run is 20 % lower: beyond
  // min_change, but inside k x spread.
  auto base = series(10, 0.08, 10, 1);
  Spread s = summarize(base);
  REQUIRE(s.spread > 0.55);
  Judgement j = judge(Sense::kHigherIsBetter, s, s.centre * 0.80, Thresholds{});
  CHECK(j.outcome == Outcome::kWithin);
  CHECK(j.basis == Basis::kNoiseBand);
  CHECK(j.worse_by > Thresholds{}.min_change * s.centre);  // the drift alone would trip min_change
}

TEST_CASE("a quiet metric with the same drift does fail") {
  auto base = series(10, 0.005, 10, 1);
  Spread s = summarize(base);
  Judgement j = judge(Sense::kHigherIsBetter, s, s.centre * 0.80, Thresholds{});
  CHECK(j.outcome == Outcome::kRegressed);
  CHECK(j.basis == Basis::kMinChange);  // the band is narrower than min_change: it decides
  CHECK(j.change == Approx(-0.20));
  CHECK(j.band_low == Approx(s.centre * 0.85));
  CHECK(j.limit == j.band_low);
}

TEST_CASE("a quiet metric's small drift stays below min_change") {
  auto base = series(10, 0.002, 10, 3);
  Spread s = summarize(base);
  // 5 % worse: far beyond 4 x spread (0.08), but under min_change (15 %).
  Judgement j = judge(Sense::kHigherIsBetter, s, s.centre * 0.95, Thresholds{});
  CHECK(j.worse_by > 4 * s.spread);
  CHECK(j.outcome == Outcome::kWithin);
}

TEST_CASE("direction decides which side is a regression") {
  Spread s = summarize(std::vector<double>{100, 101, 99, 100, 100, 102, 98});
  // A latency that drops is an improvement; the same drop of a bandwidth is a regression.
  CHECK(judge(Sense::kLowerIsBetter, s, 50, Thresholds{}).outcome == Outcome::kImproved);
  CHECK(judge(Sense::kHigherIsBetter, s, 50, Thresholds{}).outcome == Outcome::kRegressed);
  CHECK(judge(Sense::kLowerIsBetter, s, 150, Thresholds{}).outcome == Outcome::kRegressed);
  CHECK(judge(Sense::kHigherIsBetter, s, 150, Thresholds{}).outcome == Outcome::kImproved);
  // worse_by is positive for worse in both senses.
  CHECK(judge(Sense::kLowerIsBetter, s, 150, Thresholds{}).worse_by == 50);
  CHECK(judge(Sense::kHigherIsBetter, s, 50, Thresholds{}).worse_by == 50);
}

TEST_CASE("a direction mix-up is impossible by type") {
  // judge() takes a Sense; neither a Better (which includes kNone), a bool nor
  // a number converts to one, so a figure without a direction cannot be judged
  // and a sign cannot be passed by mistake.
  static_assert(!std::is_convertible_v<Better, Sense>);
  static_assert(!std::is_convertible_v<bool, Sense>);
  static_assert(!std::is_convertible_v<int, Sense>);
  static_assert(!std::is_convertible_v<double, Sense>);
  static_assert(
      !std::is_invocable_v<decltype(&judge), Better, const Spread&, double, const Thresholds&>);
  static_assert(
      !std::is_invocable_v<decltype(&judge), bool, const Spread&, double, const Thresholds&>);
  static_assert(
      std::is_invocable_v<decltype(&judge), Sense, const Spread&, double, const Thresholds&>);
  // The only way from a producer's Better to a Sense, and kNone has none.
  CHECK(sense_of(Better::kHigher) == Sense::kHigherIsBetter);
  CHECK(sense_of(Better::kLower) == Sense::kLowerIsBetter);
  CHECK_FALSE(sense_of(Better::kNone).has_value());
}

TEST_CASE("too few baseline runs: the stated fallback, never a skip") {
  Spread s = summarize(std::vector<double>{10, 10.1});  // n = 2 < min_runs 5
  Judgement small = judge(Sense::kHigherIsBetter, s, s.centre * 0.80, Thresholds{});
  CHECK(small.fallback);
  CHECK(small.basis == Basis::kFallback);
  CHECK(small.outcome == Outcome::kWithin);  // 20 % < fallback_change 25 %
  Judgement big = judge(Sense::kHigherIsBetter, s, s.centre * 0.70, Thresholds{});
  CHECK(big.outcome == Outcome::kRegressed);
  CHECK(big.half_width == Approx(0.25 * s.centre));
  // With min_runs met the spread is used instead.
  Thresholds t;
  t.min_runs = 2;
  CHECK_FALSE(judge(Sense::kHigherIsBetter, s, s.centre * 0.8, t).fallback);
}

TEST_CASE("the band edge itself is noise, min_abs and a zero centre") {
  Spread s = summarize(std::vector<double>{10, 10, 10, 10, 10});  // spread 0
  CHECK(judge(Sense::kHigherIsBetter, s, 8.5, Thresholds{}).outcome == Outcome::kWithin);
  CHECK(judge(Sense::kHigherIsBetter, s, 8.49, Thresholds{}).outcome == Outcome::kRegressed);
  // A count whose baseline is 0 (wrong elements): any increase is a regression
  // unless min_abs allows it.
  Spread zero = summarize(std::vector<double>{0, 0, 0, 0, 0});
  Judgement j = judge(Sense::kLowerIsBetter, zero, 1, Thresholds{});
  CHECK(j.outcome == Outcome::kRegressed);
  CHECK(std::isnan(j.change));
  Thresholds t;
  t.min_abs = 2;
  Judgement k = judge(Sense::kLowerIsBetter, zero, 1, t);
  CHECK(k.outcome == Outcome::kWithin);
  CHECK(k.basis == Basis::kMinAbs);
}

TEST_CASE("judge refuses what it cannot judge") {
  Spread empty;
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, empty, 1, Thresholds{}), std::invalid_argument);
  Spread s = summarize(std::vector<double>{1, 2, 3});
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, s, NAN, Thresholds{}), std::invalid_argument);
  Thresholds bad;
  bad.k = -1;
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, s, 1, bad), std::invalid_argument);
  CHECK(threshold_problem(bad).find("k ") == 0);
  bad = Thresholds{};
  bad.min_runs = 0;
  CHECK_FALSE(threshold_problem(bad).empty());
}

TEST_CASE("a value the healthy baseline itself produced is not a regression") {
  // Nine steady runs and one that dipped to 6: the MAD ignores the dip, so
  // the band ends at 8.5, but 7 is better than a healthy run already was.
  Spread s = summarize(std::vector<double>{10, 10, 10, 10, 10, 10, 10, 10, 10, 6});
  CHECK(s.spread == 0);
  Judgement j = judge(Sense::kHigherIsBetter, s, 7, Thresholds{});
  CHECK(j.outcome == Outcome::kWithin);
  CHECK(j.basis == Basis::kBaselineRange);
  CHECK(j.limit == 6);
  CHECK(judge(Sense::kHigherIsBetter, s, 5.9, Thresholds{}).outcome == Outcome::kRegressed);
  // Without the guard the band alone decides.
  Thresholds band_only;
  band_only.beyond_range = false;
  CHECK(judge(Sense::kHigherIsBetter, s, 7, band_only).outcome == Outcome::kRegressed);
  // The same for a figure where lower is better: its worst run is its highest.
  Spread lat = summarize(std::vector<double>{5, 5, 5, 5, 9});
  CHECK(judge(Sense::kLowerIsBetter, lat, 8.9, Thresholds{}).outcome == Outcome::kWithin);
  CHECK(judge(Sense::kLowerIsBetter, lat, 9.1, Thresholds{}).outcome == Outcome::kRegressed);
  // A summary that is not one (min above centre) is refused, not trusted.
  Spread broken = s;
  broken.min = 11;
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, broken, 7, Thresholds{}), std::invalid_argument);
}
