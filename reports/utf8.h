#pragma once
// Byte strings from the system (interface names, file contents, command output)
// are not guaranteed to be UTF-8, but JSON and XML require it. The emitters run
// every string through these helpers so one odd byte never makes a report
// unwritable or a reader reject it.

#include <cstddef>
#include <string>
#include <string_view>

namespace hn::reports {

// Replacement for anything that cannot be carried: U+FFFD.
inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes one code point at s[pos] and advances pos. A malformed, overlong or
// surrogate sequence consumes one byte and yields kReplacementChar, so
// decoding always makes progress.
char32_t next_code_point(std::string_view s, std::size_t& pos);

void append_utf8(std::string& out, char32_t cp);

// `s` with every malformed sequence replaced by U+FFFD; valid input is
// returned unchanged.
std::string to_valid_utf8(std::string_view s);

// Number of code points: a column width good enough for aligning text that is
// mostly ASCII with the odd "°C" (no East Asian wide characters expected).
std::size_t display_width(std::string_view s);

}  // namespace hn::reports
