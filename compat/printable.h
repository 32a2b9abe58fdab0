#pragma once
// Text that came from outside (a peer's bytes, an excerpt of a hostile file)
// made safe to print on a terminal or in a log line: control bytes (ESC, CR,
// LF, NUL, DEL, C1 such as CSI) and bytes that are not valid UTF-8 become \xNN, a backslash
// stays a backslash, and the result is cut at max_chars bytes with "..." so a
// peer cannot flood the log. Valid UTF-8 passes unchanged.

#include <cstddef>
#include <string>
#include <string_view>

namespace hn::compat {

std::string printable(std::string_view raw, std::size_t max_chars = 120);

// The offset of the first byte that does not start a valid UTF-8 sequence
// (overlong forms, surrogates and code points past U+10FFFF included), or
// npos when the whole text is UTF-8.
std::size_t first_invalid_utf8(std::string_view text);

}  // namespace hn::compat
