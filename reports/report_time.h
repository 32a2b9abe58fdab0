#pragma once
// Timestamps in reports are ISO-8601 UTC with milliseconds
// ("2024-05-01T12:34:56.789Z"): sortable as text, unambiguous across the
// nodes of a cluster, and exact for the millisecond times a Report holds.

#include <cstdint>
#include <string>
#include <string_view>

namespace hn::reports {

std::string format_iso8601_ms(std::int64_t unix_ms);

// Reads what format_iso8601_ms writes; the fraction may have 0 to 9 digits
// (anything past milliseconds is truncated) and the zone must be "Z". Throws
// std::invalid_argument naming the text otherwise.
std::int64_t parse_iso8601_ms(std::string_view text);

}  // namespace hn::reports
