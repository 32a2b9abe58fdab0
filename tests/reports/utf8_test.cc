#include "reports/utf8.h"

#include <catch2/catch.hpp>

using namespace hn::reports;

TEST_CASE("valid UTF-8 passes through unchanged") {
  for (const char* s : {"", "ascii", "°C", "日本語", "\xF0\x9F\x98\x80", "\xEF\xBF\xBD"})
    CHECK(to_valid_utf8(s) == s);
}

TEST_CASE("malformed UTF-8 becomes U+FFFD, one per bad byte") {
  const std::string r = "\xEF\xBF\xBD";
  CHECK(to_valid_utf8("a\xff"
                      "b") == "a" + r + "b");
  CHECK(to_valid_utf8("\xC0\xAF") == r + r);                  // overlong '/'
  CHECK(to_valid_utf8("\xED\xA0\x80") == r + r + r);          // surrogate
  CHECK(to_valid_utf8("\xE6\x97") == r + r);                  // truncated
  CHECK(to_valid_utf8("\xF4\x90\x80\x80") == r + r + r + r);  // above U+10FFFF
  CHECK(to_valid_utf8("\x80x") == r + "x");                   // lone continuation
}

TEST_CASE("display_width counts code points") {
  CHECK(display_width("") == 0);
  CHECK(display_width("eth1") == 4);
  CHECK(display_width("gpu°0") == 5);
  CHECK(display_width("\xff\xfe") == 2);
}

TEST_CASE("next_code_point decodes and append_utf8 encodes every length") {
  for (char32_t cp : {U'\x41', U'\xB0', U'\x65E5', U'\x1F600', U'\x10FFFF'}) {
    std::string s;
    append_utf8(s, cp);
    std::size_t pos = 0;
    CHECK(next_code_point(s, pos) == cp);
    CHECK(pos == s.size());
  }
}
