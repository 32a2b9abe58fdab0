#include "compat/printable.h"

#include <catch2/catch.hpp>

using hn::compat::printable;

TEST_CASE("peer text is printable: escapes and CR and LF and NUL and C1 controls become hex escapes") {
  CHECK(printable("plain text") == "plain text");
  CHECK(printable("a\x1b[31mred\r\nb") == "a\\x1b[31mred\\x0d\\x0ab");
  CHECK(printable(std::string("n\0ul", 4)) == "n\\x00ul");
  CHECK(printable("\xc2\x9b"
                  "2J") == "\\xc2\\x9b2J");  // CSI as UTF-8
  CHECK(printable("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  CHECK(printable(std::string(500, 'x'), 10) == std::string(10, 'x') + "...");
}
