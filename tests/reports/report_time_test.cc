#include "reports/report_time.h"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace hn::reports;

TEST_CASE("ISO-8601 times format with milliseconds in UTC and parse back") {
  CHECK(format_iso8601_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_iso8601_ms(1714564801500) == "2024-05-01T12:00:01.500Z");
  CHECK(format_iso8601_ms(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(format_iso8601_ms(951782400007) == "2000-02-29T00:00:00.007Z");
  for (std::int64_t ms : {0LL, -1LL, 1LL, 1714564801500LL, 951782400007LL, 4102444799999LL})
    CHECK(parse_iso8601_ms(format_iso8601_ms(ms)) == ms);
}

TEST_CASE("ISO-8601 parsing accepts fraction lengths and rejects the rest by text") {
  CHECK(parse_iso8601_ms("2024-05-01T12:00:01Z") == 1714564801000);
  CHECK(parse_iso8601_ms("2024-05-01T12:00:01.5Z") == 1714564801500);
  CHECK(parse_iso8601_ms("2024-05-01T12:00:01.123456789Z") == 1714564801123);
  for (const char* bad :
       {"", "2024-05-01", "2024-05-01T12:00:01", "2024-05-01T12:00:01.Z",
        "2024-05-01T12:00:01.000+02:00", "2024-05-01 12:00:01Z", "2024-02-30T00:00:00Z",
        "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:00:01.000Zjunk"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_iso8601_ms(bad), std::invalid_argument);
  }
  CHECK_THROWS_WITH(parse_iso8601_ms("yesterday"), Catch::Contains("'yesterday'"));
}
