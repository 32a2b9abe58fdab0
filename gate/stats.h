#pragma once
// The statistics of the gate: a baseline series and the new runs of one
// figure, and the rule that says whether the new runs regressed. Pure
// functions of their arguments: no I/O, no clock, no randomness.
//
// The rule (docs/gate-rules.md, "The statistics"):
//  * Scale. A figure whose baseline values are all positive (a bandwidth, a
//    time) is judged on the log scale, so a band is a ratio and no limit can
//    reach zero; a figure with a zero or negative baseline value (a count of
//    wrong elements) is judged on its own scale.
//  * Centre and noise. The median of the baseline values; the noise of one
//    healthy run is the standard deviation of the values within 3.5 MADs of
//    it. Baseline values beyond that on the bad side are dips; their share
//    is the dip rate.
//  * A regression must show in every new run: the best of the m new runs is
//    judged. A real loss is persistent; a dip on a busy machine is not.
//  * Family-wise band. A gate call judges `family` figures at once; the
//    false-alarm rate is stated per call (false_alarm, 2 %), so each figure
//    gets false_alarm / family (Bonferroni; figures whose baseline never
//    varies need no share). All m runs must land beyond the limit; runs
//    taken back to back share the machine's load, so they count as (m+1)/2
//    independent ones: each may land there with q = share^(2/(m+1)). A
//    healthy run is a mixture:
//    ordinary noise (Student's t around the median, the runs kept less one
//    degrees of freedom, widened for the uncertainty of the median) with
//    weight 1 - dip rate, and the baseline's dips as a mode of their own.
//    The limit is the nearest distance at which the mixture leaves at most
//    q; never nearer than min_change (and min_abs).
//  * Detectable change. The smallest loss caught 9 times in 10 at this
//    noise; a figure that cannot catch a loss of `detect` (20 %) is flagged
//    insensitive rather than passing silently.
// With fewer than min_runs baseline values the spread is not trusted: the
// stated fallback is a relative change of fallback_change.
//
// Direction is a type, not a sign or a bool: judge() takes a Sense, which has
// only the two values that can be judged. A figure whose producer says
// nothing can be gained or lost (reports::Better::kNone) has no Sense
// (sense_of() returns nullopt) and can never be passed to judge().

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reports/measurement.h"

namespace hn::gate {

enum class Sense { kHigherIsBetter, kLowerIsBetter };

// kHigher and kLower map to a Sense; kNone has none.
std::optional<Sense> sense_of(reports::Better better);
std::string_view to_string(Sense s);

// R's mad() constant: 1/Phi^-1(3/4), which makes the MAD estimate the
// standard deviation of normal data.
inline constexpr double kMadScale = 1.4826;

// Median of finite values. Throws std::invalid_argument when empty or when a
// value is not finite (NaN would make the order meaningless).
double median(std::span<const double> values);

// kMadScale x median(|x - centre|); 0 for one value. Same preconditions.
double scaled_mad(std::span<const double> values, double centre);

// A summary in the figure's own unit, for display: median, scaled MAD, range.
struct Spread {
  double centre = 0;  // median
  double spread = 0;  // scaled MAD
  int n = 0;          // values summarised
  double min = 0, max = 0;
};

// Throws std::invalid_argument as median() does.
Spread summarize(std::span<const double> values);

// The variance of the median of m values, in units of one value's variance:
// 1 for one value, 1/2 for two (their mean), pi/(2m) from three on (the
// median's asymptotic efficiency).
double median_variance_factor(int m);

// The upper quantile of Student's t with df degrees of freedom: the t with
// P(T > t) = p. df < 1 is taken as 1. Throws std::invalid_argument for p
// outside (0, 1).
double t_upper_quantile(double p, int df);

struct Thresholds {
  double false_alarm = 0.02;      // per gate call, shared by its judged figures
  std::optional<double> k;        // a fixed band of k spreads instead of the derived one
  double min_change = 0.10;       // never flag a smaller relative change
  double min_abs = 0;             // and never one smaller than this, in the figure's unit
  bool beyond_range = false;      // also require worse than every baseline run
  int min_runs = 5;               // fewer baseline values: the fallback
  double fallback_change = 0.25;  // the fallback's relative change
  double detect = 0.20;           // the loss a figure must be able to catch
};

enum class Outcome { kWithin, kRegressed, kImproved };
std::string_view to_string(Outcome o);

// Which limit decided where regression starts.
enum class Basis { kNoiseBand, kMinChange, kMinAbs, kFallback, kBaselineRange };
std::string_view to_string(Basis b);

enum class Scale { kLog, kLinear };
std::string_view to_string(Scale s);

struct Judgement {
  Outcome outcome = Outcome::kWithin;
  Scale scale = Scale::kLog;
  double centre = 0;                   // the baseline's median, in the figure's unit
  double current = 0;                  // the value judged: the best of the new runs
  int new_runs = 0;                    // how many new values it is the best of
  double worse_by = 0;                 // in the figure's unit; > 0 is worse, < 0 better
  double change = 0;                   // (current - centre) / |centre|; NaN when centre is 0
  double z = 0;                        // the band's half width in spreads of one run
  double noise = 0;                    // spread of one healthy run, on the judging scale
  int dips = 0;                        // baseline runs that dipped beyond 3.5 MADs
  double dip_rate = 0;                 // their share, estimated (Jeffreys: (dips + 0.5) / (n + 1))
  bool dips_included = false;          // the baseline dipped: the band lies beyond its dips
  double half_width = 0;               // on the judging scale (a log ratio, or the unit)
  double band_low = 0, band_high = 0;  // in the figure's unit
  double limit = 0;                    // regression strictly beyond this, on the bad side
  bool fallback = false;               // too few baseline values for the spread
  Basis basis = Basis::kNoiseBand;
  // The smallest relative change in the bad direction (a drop for higher is
  // better, a rise for lower is better) caught 9 times in 10; +inf when the
  // centre is 0 on the linear scale.
  double detectable = 0;
  bool insensitive = false;  // detectable is beyond `detect`
};

// The baseline values that dipped: beyond 3.5 scaled MADs of the median on
// the bad side, on the scale judge() uses. Indexes into `values`. Throws as
// median() does.
std::vector<std::size_t> dips_of(Sense sense, std::span<const double> values);

// Judges the best of `current` against the `baseline` values, in a gate
// call that judges `family` figures. Throws std::invalid_argument when either
// span is empty, a value is not finite, family < 1, or a threshold is out of
// range (threshold_problem()).
Judgement judge(Sense sense, std::span<const double> baseline, std::span<const double> current,
                const Thresholds& t, int family = 1);

// Checks a Thresholds for sane values; returns what is wrong or "". The text
// starts with the key's name.
std::string threshold_problem(const Thresholds& t);

}  // namespace hn::gate
