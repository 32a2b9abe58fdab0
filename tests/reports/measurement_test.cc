#include "reports/measurement.h"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace hn::reports;

TEST_CASE("directions round-trip and unknown text is rejected by name") {
  for (Better b : {Better::kHigher, Better::kLower, Better::kNone})
    CHECK(better_from_string(to_string(b)) == b);
  CHECK_THROWS_WITH(better_from_string("up"), Catch::Contains("'up'"));
  CHECK_THROWS_AS(better_from_string(""), std::invalid_argument);
}

TEST_CASE("identity is the name and the labels in key order, whatever the insertion order") {
  Measurement a{"collective.busbw", {{"plane", "param0"}, {"bytes", "1048576"}}, 3.5, "GB/s",
                Better::kHigher, "collectives"};
  Measurement b = a;
  b.labels.clear();
  b.labels["bytes"] = "1048576";
  b.labels["plane"] = "param0";
  b.value = 1.0;
  CHECK(identity(a) == "collective.busbw{bytes=1048576,plane=param0}");
  CHECK(identity(a) == identity(b));
  b.labels["plane"] = "param1";
  CHECK(identity(a) != identity(b));
  CHECK(identity(Measurement{"x", {}, 0, "", Better::kNone, ""}) == "x{}");
}
