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

// Log-normal noise: a bandwidth whose runs vary by a factor.
std::vector<double> lognormal(double centre, double sigma, int n, std::mt19937& gen) {
  std::normal_distribution<double> z(0, sigma);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * std::exp(z(gen)));
  return v;
}

std::vector<double> one(double v) {
  return {v};
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


TEST_CASE("Student's t quantiles as tables give them") {
  // t(0.975; 9) = 2.262, t(0.99; 4) = 3.747, t(0.995; 1000) ~ 2.581.
  CHECK(t_upper_quantile(0.025, 9) == Approx(2.262).epsilon(0.001));
  CHECK(t_upper_quantile(0.01, 4) == Approx(3.747).epsilon(0.001));
  CHECK(t_upper_quantile(0.005, 1000) == Approx(2.581).epsilon(0.001));
  CHECK_THROWS_AS(t_upper_quantile(0, 3), std::invalid_argument);
  CHECK(median_variance_factor(1) == 1);
  CHECK(median_variance_factor(2) == 0.5);
  CHECK(median_variance_factor(3) == Approx(M_PI / 6));
}

TEST_CASE("on the log scale no limit reaches zero, however skewed the baseline") {
  // The review's case: a wide, skewed baseline at 16 MiB put a linear band's
  // lower edge below zero, so 0.01 GB/s (-99.8 %) passed.
  const std::vector<double> base = {5.0, 4.8, 0.9, 5.1, 1.2, 4.9, 5.2};
  Judgement j = judge(Sense::kHigherIsBetter, base, one(0.01), Thresholds{});
  CHECK(j.scale == Scale::kLog);
  CHECK(j.limit > 0);
  CHECK(j.band_low > 0);
  CHECK(j.outcome == Outcome::kRegressed);
  // The same wide baseline says it cannot catch a 20 % loss.
  CHECK(j.insensitive);
  // Lower is better: the band's edge is a ratio above the centre.
  Judgement t = judge(Sense::kLowerIsBetter, base, one(100), Thresholds{});
  CHECK(t.outcome == Outcome::kRegressed);
}

TEST_CASE("one bad baseline run does not set the limit") {
  // The review's case: one baseline run at 12 % of the median put the old
  // worst-run limit there. The median and MAD ignore it now.
  const std::vector<double> base = {10.0, 10.2, 9.9, 10.1, 1.2, 10.0, 9.8, 10.3, 10.1, 9.9};
  const std::vector<double> three = {5, 5.1, 4.9};
  Judgement j = judge(Sense::kHigherIsBetter, base, three, Thresholds{});
  CHECK(j.outcome == Outcome::kRegressed);
  CHECK(j.limit > 8);
  CHECK_FALSE(j.insensitive);
  CHECK(j.dip_rate == Approx(1.5 / 11));
  CHECK(j.dips_included);
  // One new run cannot be told from such a dip (1 in 10 > 2 %): its limit
  // lies beyond the dip, and the figure says it cannot catch 20 %.
  Judgement single = judge(Sense::kHigherIsBetter, base, one(5), Thresholds{});
  CHECK(single.outcome == Outcome::kWithin);
  CHECK(single.limit < 1.2);
  CHECK(single.insensitive);
}

TEST_CASE("the worst-run floor is off by default and said when on") {
  const std::vector<double> base = {10.0, 10.2, 9.9, 10.1, 7.5, 10.0, 9.8, 10.3, 10.1, 9.9};
  const std::vector<double> three = {8, 8.1, 7.9};
  Judgement j = judge(Sense::kHigherIsBetter, base, three, Thresholds{});
  CHECK(j.outcome == Outcome::kRegressed);
  Thresholds range;
  range.beyond_range = true;
  Judgement r = judge(Sense::kHigherIsBetter, base, three, range);
  CHECK(r.outcome == Outcome::kWithin);
  CHECK(r.basis == Basis::kBaselineRange);
  CHECK(r.limit == 7.5);
}

TEST_CASE("a regression shows in every new run") {
  const std::vector<double> base = {10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.3, 10.1, 9.9, 10.0};
  // Dipped runs among three are transient; all three is a loss.
  CHECK(judge(Sense::kHigherIsBetter, base, std::vector<double>{10, 3, 10.1}, Thresholds{})
            .outcome == Outcome::kWithin);
  CHECK(judge(Sense::kHigherIsBetter, base, std::vector<double>{3, 3.2, 10.1}, Thresholds{})
            .outcome == Outcome::kWithin);
  CHECK(judge(Sense::kHigherIsBetter, base, std::vector<double>{3, 3.2, 3.1}, Thresholds{})
            .outcome == Outcome::kRegressed);
  CHECK(judge(Sense::kLowerIsBetter, base, std::vector<double>{30, 10, 31}, Thresholds{})
            .outcome == Outcome::kWithin);
  // Direction: the same value is better one way and worse the other.
  CHECK(judge(Sense::kLowerIsBetter, base, one(5), Thresholds{}).outcome == Outcome::kImproved);
  CHECK(judge(Sense::kHigherIsBetter, base, one(15), Thresholds{}).outcome == Outcome::kImproved);
  CHECK(judge(Sense::kLowerIsBetter, base, one(15), Thresholds{}).outcome == Outcome::kRegressed);
  CHECK(judge(Sense::kHigherIsBetter, base, one(5), Thresholds{}).worse_by == Approx(5));
  // A value on the edge is noise.
  Judgement j = judge(Sense::kHigherIsBetter, base, one(10), Thresholds{});
  CHECK(judge(Sense::kHigherIsBetter, base, one(j.limit), Thresholds{}).outcome ==
        Outcome::kWithin);
  CHECK(judge(Sense::kHigherIsBetter, base, one(j.limit * 0.999), Thresholds{}).outcome ==
        Outcome::kRegressed);
}

TEST_CASE("a quiet figure is held to min_change, a noisy one to its band") {
  const std::vector<double> quiet = {10.0, 10.01, 9.99, 10.0, 10.02, 9.98, 10.0};
  Judgement q = judge(Sense::kHigherIsBetter, quiet, one(9.5), Thresholds{});
  CHECK(q.basis == Basis::kMinChange);
  CHECK(q.outcome == Outcome::kWithin);  // -5 %: below the 10 % worth blocking on
  CHECK(judge(Sense::kHigherIsBetter, quiet, one(8.9), Thresholds{}).outcome ==
        Outcome::kRegressed);
  CHECK(q.detectable == Approx(0.10).margin(0.01));
  std::mt19937 gen(3);
  auto noisy = lognormal(10, 0.1, 10, gen);
  Judgement n = judge(Sense::kHigherIsBetter, noisy, one(8.5), Thresholds{});
  CHECK(n.basis == Basis::kNoiseBand);
  CHECK(n.outcome == Outcome::kWithin);
}

TEST_CASE("the band widens with the number of figures judged together") {
  std::mt19937 gen(5);
  auto base = lognormal(10, 0.05, 10, gen);
  Judgement one_figure = judge(Sense::kHigherIsBetter, base, one(10), Thresholds{}, 1);
  Judgement many = judge(Sense::kHigherIsBetter, base, one(10), Thresholds{}, 100);
  CHECK(many.z > one_figure.z);
  CHECK(many.half_width >= one_figure.half_width);
  // More baseline runs narrow it (fewer degrees of freedom lost).
  auto more = lognormal(10, 0.05, 40, gen);
  CHECK(judge(Sense::kHigherIsBetter, more, one(10), Thresholds{}, 1).z < one_figure.z);
  // A fixed k from the rules replaces the derived one.
  Thresholds fixed;
  fixed.k = 2;
  CHECK(judge(Sense::kHigherIsBetter, base, one(10), fixed, 100).z == 2);
}

TEST_CASE("a bimodal baseline: new runs in its slow mode are not a regression") {
  // shm under bursts of CPU load: some runs at a quarter of the others.
  const std::vector<double> base = {7.3, 6.6, 28.7, 25.0, 24.3, 28.5, 26.1, 27.2, 7.0, 25.5};
  Judgement j = judge(Sense::kHigherIsBetter, base, std::vector<double>{7.1, 6.9, 6.7}, Thresholds{}, 8);
  CHECK(j.dips_included);
  CHECK(j.outcome == Outcome::kWithin);
  CHECK(j.limit < 7.0);  // beyond the middle of the slow mode
  CHECK(j.insensitive);
}

TEST_CASE("false alarms per call stay near the stated rate on log-normal noise") {
  // 2,000 simulated gate calls of 20 figures each, nothing changed, and
  // one run in 20 dipping to a third (a busy machine): the share of calls
  // with any regression is about false_alarm (2 %), not 20x.
  std::mt19937 gen(11);
  std::bernoulli_distribution dip(0.05);
  auto dipping = [&](int n) {
    auto v = lognormal(10, 0.08, n, gen);
    for (double& x : v)
      if (dip(gen)) x /= 3;
    return v;
  };
  int alarms = 0;
  const int calls = 2000, figures = 20;
  for (int c = 0; c < calls; ++c) {
    bool any = false;
    for (int f = 0; f < figures; ++f) {
      auto base = dipping(10);
      auto now = dipping(3);
      any = any || judge(Sense::kHigherIsBetter, base, now, Thresholds{}, figures).outcome ==
                       Outcome::kRegressed;
    }
    alarms += any;
  }
  CHECK(alarms <= calls * 0.04);
}

TEST_CASE("a 50 % loss is caught on a figure that states it can") {
  std::mt19937 gen(13);
  int caught = 0, sensitive = 0;
  for (int c = 0; c < 500; ++c) {
    auto base = lognormal(10, 0.08, 10, gen);
    auto now = lognormal(5, 0.08, 3, gen);
    Judgement j = judge(Sense::kHigherIsBetter, base, now, Thresholds{}, 20);
    if (j.detectable < 0.5) {
      ++sensitive;
      caught += j.outcome == Outcome::kRegressed;
    }
  }
  CHECK(sensitive > 400);
  CHECK(caught >= sensitive * 0.9);
}

TEST_CASE("too few baseline runs: the stated fallback") {
  const std::vector<double> base = {10, 10.1, 9.9};
  Judgement j = judge(Sense::kHigherIsBetter, base, one(8), Thresholds{});
  CHECK(j.fallback);
  CHECK(j.basis == Basis::kFallback);
  CHECK(j.outcome == Outcome::kWithin);  // -20 %, inside the 25 % fallback
  CHECK(judge(Sense::kHigherIsBetter, base, one(7.4), Thresholds{}).outcome ==
        Outcome::kRegressed);
  CHECK(j.insensitive);  // 25 % > 20 %: said, not hidden
}

TEST_CASE("counts around zero are judged on their own scale") {
  const std::vector<double> zero = {0, 0, 0, 0, 0};
  Judgement j = judge(Sense::kLowerIsBetter, zero, one(1), Thresholds{});
  CHECK(j.scale == Scale::kLinear);
  CHECK(j.outcome == Outcome::kRegressed);
  CHECK_FALSE(j.insensitive);
  CHECK(judge(Sense::kLowerIsBetter, zero, one(0), Thresholds{}).outcome == Outcome::kWithin);
  // min_abs tolerates a small count.
  Thresholds t;
  t.min_abs = 2;
  CHECK(judge(Sense::kLowerIsBetter, zero, one(1), t).outcome == Outcome::kWithin);
  CHECK(judge(Sense::kLowerIsBetter, zero, one(3), t).outcome == Outcome::kRegressed);
  // Higher is better at 0 can never fail: flagged.
  CHECK(judge(Sense::kHigherIsBetter, zero, one(0), Thresholds{}).insensitive);
}

TEST_CASE("direction is a Sense, never a Better or a bool") {
  static_assert(!std::is_invocable_v<decltype(&judge), Better, std::span<const double>,
                                     std::span<const double>, const Thresholds&, int>);
  static_assert(!std::is_invocable_v<decltype(&judge), bool, std::span<const double>,
                                     std::span<const double>, const Thresholds&, int>);
  static_assert(std::is_invocable_v<decltype(&judge), Sense, std::span<const double>,
                                    std::span<const double>, const Thresholds&, int>);
  CHECK_FALSE(sense_of(Better::kNone));
  CHECK(sense_of(Better::kHigher) == Sense::kHigherIsBetter);
}

TEST_CASE("judge refuses what it cannot judge") {
  const std::vector<double> base = {1, 2, 3, 4, 5};
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, std::vector<double>{}, one(1), Thresholds{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, base, std::vector<double>{}, Thresholds{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, base, one(NAN), Thresholds{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, base, one(1), Thresholds{}, 0),
                  std::invalid_argument);
  Thresholds bad;
  bad.k = -1;
  CHECK_THROWS_AS(judge(Sense::kHigherIsBetter, base, one(1), bad), std::invalid_argument);
  bad = Thresholds{};
  bad.false_alarm = 0;
  CHECK(threshold_problem(bad).rfind("false_alarm", 0) == 0);
  bad = Thresholds{};
  bad.min_change = 1;
  CHECK(threshold_problem(bad).rfind("min_change", 0) == 0);
  bad = Thresholds{};
  bad.min_runs = 0;
  CHECK(threshold_problem(bad).rfind("min_runs", 0) == 0);
}
