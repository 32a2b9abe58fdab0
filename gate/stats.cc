#include "gate/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

std::string threshold_problem(const Thresholds& t) {
  auto bad = [](double v) { return !std::isfinite(v) || v < 0; };
  if (bad(t.k)) return "k must be a finite number >= 0";
  if (bad(t.min_change)) return "min_change must be a finite number >= 0";
  if (bad(t.min_abs)) return "min_abs must be a finite number >= 0";
  if (bad(t.fallback_change)) return "fallback_change must be a finite number >= 0";
  if (t.min_runs < 1) return "min_runs must be at least 1";
  return "";
}

Judgement judge(Sense sense, const Spread& base, double current, const Thresholds& t) {
  if (base.n < 1) throw std::invalid_argument("the baseline has no value to judge against");
  if (!std::isfinite(current)) throw std::invalid_argument("the value to judge is not finite");
  if (!(base.min <= base.centre && base.centre <= base.max))
    throw std::invalid_argument("the baseline summary's min, centre and max are out of order");
  if (std::string why = threshold_problem(t); !why.empty()) throw std::invalid_argument(why);

  Judgement j;
  j.current = current;
  // The only place the direction turns into a sign.
  j.worse_by = sense == Sense::kHigherIsBetter ? base.centre - current : current - base.centre;
  const double scale = std::fabs(base.centre);
  j.change = scale > 0 ? (current - base.centre) / scale : std::numeric_limits<double>::quiet_NaN();

  j.fallback = base.n < t.min_runs;
  double noise = j.fallback ? 0 : t.k * base.spread;
  double relative = (j.fallback ? t.fallback_change : t.min_change) * scale;
  j.half_width = noise;
  j.basis = Basis::kNoiseBand;
  if (relative > j.half_width || j.fallback) {
    j.half_width = std::max(j.half_width, relative);
    j.basis = j.fallback ? Basis::kFallback : Basis::kMinChange;
  }
  if (t.min_abs > j.half_width) {
    j.half_width = t.min_abs;
    j.basis = Basis::kMinAbs;
  }
  j.band_low = base.centre - j.half_width;
  j.band_high = base.centre + j.half_width;
  const bool higher = sense == Sense::kHigherIsBetter;
  j.limit = higher ? j.band_low : j.band_high;
  if (t.beyond_range) {
    const double worst = higher ? base.min : base.max;
    if (higher ? worst < j.limit : worst > j.limit) {
      j.limit = worst;
      j.basis = Basis::kBaselineRange;
    }
  }
  // Strictly beyond: a value on the edge is still noise.
  if (higher ? current < j.limit : current > j.limit)
    j.outcome = Outcome::kRegressed;
  else if (-j.worse_by > j.half_width)
    j.outcome = Outcome::kImproved;
  return j;
}

}  // namespace hn::gate
