#include "gate/stats.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace hn::gate {

namespace {

void require_finite(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("no values to summarise");
  for (double v : values)
    if (!std::isfinite(v)) throw std::invalid_argument("a value to summarise is not finite");
}

}  // namespace

std::optional<Sense> sense_of(reports::Better better) {
  switch (better) {
    case reports::Better::kHigher:
      return Sense::kHigherIsBetter;
    case reports::Better::kLower:
      return Sense::kLowerIsBetter;
    case reports::Better::kNone:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string_view to_string(Sense s) {
  return s == Sense::kHigherIsBetter ? "higher is better" : "lower is better";
}

double median(std::span<const double> values) {
  require_finite(values);
  std::vector<double> v(values.begin(), values.end());
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2;
}

double scaled_mad(std::span<const double> values, double centre) {
  require_finite(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values) dev.push_back(std::fabs(v - centre));
  return kMadScale * median(dev);
}

Spread summarize(std::span<const double> values) {
  Spread s;
  s.centre = median(values);
  s.spread = scaled_mad(values, s.centre);
  s.n = static_cast<int>(values.size());
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

double median_variance_factor(int m) {
  if (m <= 1) return 1;
  if (m == 2) return 0.5;
  return std::numbers::pi / (2.0 * m);
}

double t_upper_quantile(double p, int df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("a t quantile needs 0 < p < 1");
  const boost::math::students_t dist(std::max(df, 1));
  return boost::math::quantile(boost::math::complement(dist, p));
}

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::kWithin:
      return "within";
    case Outcome::kRegressed:
      return "regressed";
    case Outcome::kImproved:
      return "improved";
  }
  return "within";
}

std::string_view to_string(Basis b) {
  switch (b) {
    case Basis::kNoiseBand:
      return "noise band";
    case Basis::kMinChange:
      return "minimum change";
    case Basis::kMinAbs:
      return "minimum absolute change";
    case Basis::kFallback:
      return "fallback";
    case Basis::kBaselineRange:
      return "baseline range";
  }
  return "noise band";
}

std::string_view to_string(Scale s) {
  return s == Scale::kLog ? "log" : "linear";
}

std::string threshold_problem(const Thresholds& t) {
  auto bad = [](double v) { return !std::isfinite(v) || v < 0; };
  if (!std::isfinite(t.false_alarm) || t.false_alarm <= 0 || t.false_alarm >= 0.5)
    return "false_alarm must be a share in (0, 0.5)";
  if (t.k && bad(*t.k)) return "k must be a finite number >= 0";
  if (bad(t.min_change) || t.min_change >= 1) return "min_change must be a share in [0, 1)";
  if (bad(t.min_abs)) return "min_abs must be a finite number >= 0";
  if (bad(t.fallback_change) || t.fallback_change >= 1)
    return "fallback_change must be a share in [0, 1)";
  if (bad(t.detect) || t.detect >= 1) return "detect must be a share in [0, 1)";
  if (t.min_runs < 1) return "min_runs must be at least 1";
  return "";
}

std::vector<std::size_t> dips_of(Sense sense, std::span<const double> values) {
  require_finite(values);
  std::vector<double> b(values.begin(), values.end());
  const bool log = std::all_of(b.begin(), b.end(), [](double v) { return v > 0; });
  if (log)
    for (double& v : b) v = std::log(v);
  const double c = median(b), mad = scaled_mad(b, c);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (mad > 0 && (sense == Sense::kHigherIsBetter ? c - b[i] : b[i] - c) > 3.5 * mad)
      out.push_back(i);
  return out;
}

Judgement judge(Sense sense, std::span<const double> baseline, std::span<const double> current,
                const Thresholds& t, int family) {
  if (baseline.empty()) throw std::invalid_argument("the baseline has no value to judge against");
  if (current.empty()) throw std::invalid_argument("there is no new value to judge");
  require_finite(baseline);
  require_finite(current);
  if (family < 1) throw std::invalid_argument("a gate call judges at least one figure");
  if (std::string why = threshold_problem(t); !why.empty()) throw std::invalid_argument(why);

  const bool higher = sense == Sense::kHigherIsBetter;
  const int n = static_cast<int>(baseline.size());
  Judgement j;
  j.new_runs = static_cast<int>(current.size());
  // The best new run: a regression is persistent and shows in every run; a
  // dip on a busy machine is transient and rarely hits them all.
  j.current = higher ? *std::max_element(current.begin(), current.end())
                     : *std::min_element(current.begin(), current.end());
  j.scale = std::all_of(baseline.begin(), baseline.end(), [](double v) { return v > 0; })
                ? Scale::kLog
                : Scale::kLinear;
  const bool log = j.scale == Scale::kLog;

  // Everything below is on the judging scale until the limits go back.
  std::vector<double> b(baseline.begin(), baseline.end());
  if (log)
    for (double& v : b) v = std::log(v);
  const double c = median(b);
  const double centre = log ? std::exp(c) : c;
  const double scale = std::fabs(centre);
  j.centre = centre;
  const double ninf = -std::numeric_limits<double>::infinity();
  // Only the log scale may see a value <= 0: infinitely worse or better.
  const double now = !log ? j.current : j.current > 0 ? std::log(j.current) : ninf;
  j.worse_by = higher ? centre - j.current : j.current - centre;
  j.change = scale > 0 ? (j.current - centre) / scale : std::numeric_limits<double>::quiet_NaN();

  // The noise of one healthy run: the standard deviation of the values
  // within 3.5 MADs of the median. The MAD alone wastes most of a small
  // sample (37 % efficiency: t would understate the tails); the plain
  // standard deviation lets one dipped baseline run widen every band. Values
  // beyond on the bad side are dips: their share is the dip rate.
  const double mad = scaled_mad(b, c);
  auto moments = [&](bool trim, int& kept) {
    double sum = 0, sq = 0;
    kept = 0;
    for (double v : b)
      if (!trim || mad == 0 || std::fabs(v - c) <= 3.5 * mad) {
        sum += v;
        sq += v * v;
        ++kept;
      }
    const double mean = sum / kept;
    return kept > 1 ? std::sqrt(std::max(0.0, (sq - kept * mean * mean) / (kept - 1))) : 0.0;
  };
  const int dips = static_cast<int>(dips_of(sense, baseline).size());
  // Jeffreys' estimate: ten clean baseline runs do not prove dips never
  // happen, and a busy machine's dips are what false alarms are made of.
  j.dips = dips;
  j.dip_rate = (dips + 0.5) / (n + 1);

  // A false alarm needs every new run beyond the limit: with m runs each may
  // be there with q = (share)^(1/m). A healthy run lands beyond a distance h
  // from the centre either as ordinary noise (a t distribution around the
  // centre) or as a dip: the baseline's dips are a second mode of their own
  // (around their median, with their own spread), weighted by the dip rate.
  // h is the smallest distance at which that mixture leaves at most q. With
  // no dip seen, the unseen ones take their estimated share of q first, or,
  // with no room left (one new run), are not modelled.
  const double share_of_call = t.false_alarm / family;
  // Runs taken one after the other share the machine's state (a burst of
  // load spans several): they count as (m + 1) / 2 independent ones.
  const double q = std::pow(share_of_call, 2.0 / (j.new_runs + 1));
  int kept = n;
  j.noise = mad == 0 ? 0 : moments(true, kept);
  const double se = std::sqrt(1 + median_variance_factor(n));
  std::vector<double> bad;  // how far each dip is beyond the centre
  for (double v : b)
    if (mad > 0 && (higher ? c - v : v - c) > 3.5 * mad) bad.push_back(higher ? c - v : v - c);
  auto upper_tail = [](double x, int df) {
    const boost::math::students_t dist(std::max(df, 1));
    return boost::math::cdf(boost::math::complement(dist, x));
  };
  auto main_tail = [&](double h) {
    if (j.noise == 0) return h > 0 ? 0.0 : 0.5;
    return upper_tail(h / (j.noise * se), kept - 1);
  };
  double target = q, weight = 1;
  std::function<double(double)> dip_tail = [](double) { return 0.0; };
  if (!bad.empty()) {
    const double dip_centre = median(bad);
    // Fewer than three dips say little about their own spread: they borrow
    // the main mode's (and its degrees of freedom).
    double dip_noise = j.noise;
    if (bad.size() >= 3) {
      double m = 0, sq = 0;
      for (double x : bad) m += x;
      m /= static_cast<double>(bad.size());
      for (double x : bad) sq += (x - m) * (x - m);
      dip_noise = std::max(dip_noise, std::sqrt(sq / static_cast<double>(bad.size() - 1)));
    }
    const double dip_se = std::sqrt(1 + 1.0 / static_cast<double>(bad.size()));
    const int dip_df = bad.size() >= 3 ? static_cast<int>(bad.size()) - 1 : kept - 1;
    dip_tail = [=](double h) {
      if (dip_noise == 0) return h > dip_centre ? 0.0 : 1.0;
      return upper_tail((h - dip_centre) / (dip_noise * dip_se), dip_df);
    };
    weight = 1 - j.dip_rate;
    j.dips_included = true;
  } else if ((q - j.dip_rate) / (1 - j.dip_rate) > q / 10) {
    target = (q - j.dip_rate) / (1 - j.dip_rate);
  }
  auto beyond = [&](double h) { return weight * main_tail(h) + (1 - weight) * dip_tail(h); };

  // A relative share as a half width on the judging scale.
  auto share = [&](double s) { return log ? -std::log1p(-s) : s * scale; };
  j.fallback = n < t.min_runs;
  if (j.fallback) {
    j.half_width = share(t.fallback_change);
    j.basis = Basis::kFallback;
  } else {
    double h = 0;
    if (t.k) {
      h = *t.k * j.noise;
    } else if (beyond(0) > target) {
      // Bisection: beyond() falls with h; widen until it is under target.
      double lo_h = 0, hi_h = std::max({j.noise, mad, 1e-12});
      for (int k = 0; k < 200 && beyond(hi_h) > target; ++k) hi_h *= 2;
      for (int k = 0; k < 100; ++k) {
        const double mid = (lo_h + hi_h) / 2;
        (beyond(mid) > target ? lo_h : hi_h) = mid;
      }
      h = hi_h;
    }
    j.z = j.noise > 0 ? h / j.noise : 0;
    j.half_width = h;
    j.basis = Basis::kNoiseBand;
    if (share(t.min_change) > j.half_width) {
      j.half_width = share(t.min_change);
      j.basis = Basis::kMinChange;
    }
  }
  double lo = log ? std::exp(c - j.half_width) : c - j.half_width;
  double hi = log ? std::exp(c + j.half_width) : c + j.half_width;
  if (t.min_abs > 0 && (higher ? centre - lo : hi - centre) < t.min_abs) {
    (higher ? lo : hi) = higher ? centre - t.min_abs : centre + t.min_abs;
    j.basis = Basis::kMinAbs;
  }
  j.band_low = lo;
  j.band_high = hi;
  j.limit = higher ? lo : hi;
  if (t.beyond_range) {
    const double worst = higher ? *std::min_element(baseline.begin(), baseline.end())
                                : *std::max_element(baseline.begin(), baseline.end());
    if (higher ? worst < j.limit : worst > j.limit) {
      j.limit = worst;
      j.basis = Basis::kBaselineRange;
    }
  }

  // Strictly beyond: a value on the edge is still noise.
  const double limit_scaled = !log ? j.limit : j.limit > 0 ? std::log(j.limit) : ninf;
  if (higher ? now < limit_scaled : now > limit_scaled)
    j.outcome = Outcome::kRegressed;
  else if (higher ? now > (log ? std::log(hi) : hi) : now < (log ? std::log(lo) : lo))
    j.outcome = Outcome::kImproved;

  // How far the truth must move for every new run to land beyond the limit
  // 9 times in 10: the distance to the limit plus one run's noise at the
  // (0.9)^(1/m) quantile.
  const boost::math::normal_distribution<double> normal;
  const double z90 = boost::math::quantile(normal, std::pow(0.9, 1.0 / j.new_runs));
  const double reach = std::fabs(limit_scaled - c) + (j.fallback ? 0 : z90 * j.noise);
  if (log) {
    j.detectable = higher ? -std::expm1(-reach) : std::expm1(reach);
    j.insensitive = reach > share(t.detect);
  } else if (scale > 0) {
    j.detectable = reach / scale;
    j.insensitive = j.detectable > t.detect;
  } else {
    // A centre of 0: a relative change means nothing. Lower is better (a
    // count of errors): any rise beyond `reach` is caught. Higher is better:
    // only a negative value could fail, which no figure here can take.
    j.detectable = std::numeric_limits<double>::infinity();
    j.insensitive = higher;
  }
  return j;
}

}  // namespace hn::gate
