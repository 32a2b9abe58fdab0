#include "reports/uuid.h"

#include <catch2/catch.hpp>

using namespace hn::reports;

TEST_CASE("uuid: random v4 ids, and the check that a baseline id is one") {
  const std::string a = random_uuid(), b = random_uuid();
  CHECK(a != b);
  CHECK(is_uuid(a));
  CHECK(a[14] == '4');
  CHECK(std::string("89ab").find(a[19]) != std::string::npos);
  CHECK(is_uuid("0B7C5F3E-8D2A-4C1E-9F60-1A2B3C4D5E6F"));
  CHECK_FALSE(is_uuid("base-1"));
  CHECK_FALSE(is_uuid("0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6"));
  CHECK_FALSE(is_uuid("0b7c5f3e08d2a-4c1e-9f60-1a2b3c4d5e6f"));
  CHECK_FALSE(is_uuid("0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6g"));
}
