#include "reports/measurement.h"

#include <stdexcept>

namespace hn::reports {

std::string_view to_string(Better b) {
  switch (b) {
    case Better::kHigher:
      return "higher";
    case Better::kLower:
      return "lower";
    case Better::kNone:
      return "none";
  }
  return "none";
}

Better better_from_string(std::string_view s) {
  if (s == "higher") return Better::kHigher;
  if (s == "lower") return Better::kLower;
  if (s == "none") return Better::kNone;
  throw std::invalid_argument("'" + std::string(s) +
                              "' is not a direction (expected higher, lower or none)");
}

std::string identity(const Measurement& m) {
  std::string out = m.name + "{";
  bool first = true;
  for (const auto& [k, v] : m.labels) {
    if (!first) out += ",";
    first = false;
    out += k + "=" + v;
  }
  return out + "}";
}

}  // namespace hn::reports
