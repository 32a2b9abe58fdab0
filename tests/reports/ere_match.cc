#include "tests/reports/ere_match.h"

#include <regex.h>

#include <stdexcept>

namespace hn::reports::test {

bool ere_search(const std::string& text, const std::string& pattern) {
  regex_t re;
  if (regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB) != 0)
    throw std::invalid_argument("bad regular expression: " + pattern);
  bool match = regexec(&re, text.c_str(), 0, nullptr, 0) == 0;
  regfree(&re);
  return match;
}

}  // namespace hn::reports::test
