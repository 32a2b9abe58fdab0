#include "compat/units.h"

#include <catch2/catch.hpp>

using hn::compat::format_size;
using hn::compat::parse_size;

TEST_CASE("sizes parse with binary suffixes") {
  struct Case {
    const char* text;
    std::uint64_t bytes;
  };
  const Case cases[] = {{"0", 0},           {"8", 8},
                        {"4K", 4096},       {"4KiB", 4096},
                        {"4kb", 4096},      {"64M", 64ull << 20},
                        {"1MiB", 1 << 20},  {"1.5K", 1536},
                        {"2G", 2ull << 30}, {"256M", 256ull << 20},
                        {"1T", 1ull << 40}, {"7B", 7}};
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(parse_size(c.text) == c.bytes);
  }
}

TEST_CASE("bad sizes are rejected with the text") {
  for (const char* bad : {"", "K", "-1", "4X", "1.3B", "12 parsecs", "1e3"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_size(bad), Catch::Contains("invalid size"));
  }
}

TEST_CASE("sizes format back") {
  CHECK(format_size(7) == "7B");
  CHECK(format_size(4096) == "4KiB");
  CHECK(format_size(1536) == "1.5KiB");
  CHECK(format_size(256ull << 20) == "256MiB");
}
