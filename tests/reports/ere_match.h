#pragma once
// POSIX extended regular expressions for the tests. std::regex trips a
// -Wmaybe-uninitialized false positive in GCC 12's libstdc++ at -O2, and the
// patterns here (schema patterns, code and UUID formats) are plain ERE.

#include <string>

namespace hn::reports::test {

// True when pattern (ERE, as in JSON Schema "pattern": unanchored unless it
// says ^ or $) matches somewhere in text. Throws std::invalid_argument when
// the pattern does not compile.
bool ere_search(const std::string& text, const std::string& pattern);

}  // namespace hn::reports::test
