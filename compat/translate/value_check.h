#pragma once
// Reads a value by its variable's rule row (type, range, enum values) and fits
// numbers into a target's range. The parsers throw std::invalid_argument
// saying what the type expects; the translator adds file, line and name.

#include <optional>
#include <string>

#include "compat/translate/rules.h"

namespace hn::compat::translate {

struct ParsedValue {
  std::string text;                 // canonical spelling (enum tokens as the table writes them)
  std::optional<long long> number;  // int types, and enums that took an integer
  bool infinite = false;            // the value means "no limit" (infinite_at / infinite_from)
  bool outside_range = false;       // outside the library's documented range on this platform
};

// Throws std::invalid_argument when the text is not of the variable's type.
ParsedValue parse_typed(const VarSpec& spec, const std::string& text, const std::string& platform);

struct FitResult {
  enum Status { kOk, kRounded, kClamped };
  Status status = kOk;
  long long value = 0;
  std::string detail;  // how it changed, e.g. "rounded down to a multiple of 4"
  // The value broke multiple_of, a rule the library enforces (HCCL_RDMA_TC
  // must be a multiple of 4). A platform `step` is not such a rule: the
  // library itself rounds to it (HCCL_EXEC_TIMEOUT 600 -> 544 on Atlas).
  bool off_multiple = false;
};

// Fits a number (or "no limit") into an int variable's range on a platform:
// below the minimum or above the maximum is clamped; multiple_of and step
// round down (up when that would leave the range). "No limit" becomes the
// variable's own no-limit value when it has one in range, else its maximum.
FitResult fit_number(const VarSpec& spec, long long v, bool infinite, const std::string& platform);

// Empty when v lies within the variable's plausible bounds (or it has none),
// else why not: "8388608 MB is above the plausible maximum of 65536 MB: <note>".
std::string plausibility_problem(const VarSpec& spec, long long v);

// "131 µs", "4.3 s", "2.4 h", "infinite": durations as people configure them.
std::string format_seconds(double s);
// 4.096 µs * 2^v, in seconds (the IB Local ACK Timeout encoding).
double ib_timeout_seconds(long long exponent);

}  // namespace hn::compat::translate
