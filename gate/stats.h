#pragma once
// The statistics of the gate: a baseline series summarised by its median and
// a robust spread, and the rule that judges a new value against it. Pure
// functions of their arguments: no I/O, no clock, no randomness.
//
// The rule (docs/gate-rules.md): a value is a regression only when it is
// worse than the baseline centre by more than BOTH the noise band (k x the
// spread) and the minimum relative change (min_change x |centre|), and by
// more than min_abs; with beyond_range, it must also be worse than every
// baseline value (a value the healthy baseline itself produced is noise).
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

struct Spread {
  double centre = 0;  // median
  double spread = 0;  // scaled MAD
  int n = 0;          // values summarised
  double min = 0, max = 0;
};

// Throws std::invalid_argument as median() does.
Spread summarize(std::span<const double> values);

// Defaults measured on a loaded 2-core VM (bench/README.md, gate_noise):
// single runs on an unchanged link dipped 15-25 % at one size now and then,
// so 10 % gave false alarms; a 20 % slower link is still caught.
struct Thresholds {
  double k = 4;                   // noise band = k x spread
  double min_change = 0.15;       // and beyond this share of |centre|
  double min_abs = 0;             // and beyond this, in the metric's unit
  bool beyond_range = true;       // and worse than the worst baseline value
  int min_runs = 5;               // fewer baseline values: the fallback
  double fallback_change = 0.25;  // the fallback's relative change
};

enum class Outcome { kWithin, kRegressed, kImproved };
std::string_view to_string(Outcome o);

// Which limit decided where regression starts.
enum class Basis { kNoiseBand, kMinChange, kMinAbs, kFallback, kBaselineRange };
std::string_view to_string(Basis b);

struct Judgement {
  Outcome outcome = Outcome::kWithin;
  double current = 0;                  // the value judged
  double worse_by = 0;                 // in the metric's unit; > 0 is worse, < 0 better
  double change = 0;                   // (current - centre) / |centre|; NaN when centre is 0
  double half_width = 0;               // the band is centre -/+ half_width
  double band_low = 0, band_high = 0;  // centre -/+ half_width
  double limit = 0;                    // regression strictly beyond this, on the bad side
  bool fallback = false;               // too few baseline values for the spread
  Basis basis = Basis::kNoiseBand;
};

// Judges `current` against a baseline summary with n >= 1. Throws
// std::invalid_argument when base.n < 1, current is not finite, or a
// threshold is negative or NaN.
Judgement judge(Sense sense, const Spread& base, double current, const Thresholds& t);

// Checks a Thresholds for sane values; returns what is wrong or "".
std::string threshold_problem(const Thresholds& t);

}  // namespace hn::gate
