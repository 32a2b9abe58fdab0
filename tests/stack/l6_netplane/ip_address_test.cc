#include "stack/l6_netplane/ip_address.h"

#include <catch2/catch.hpp>

using namespace hn::stack::netplane;

TEST_CASE("prefixes contain exactly their addresses") {
  struct Case {
    const char* prefix;
    const char* addr;
    bool inside;
  };
  const Case cases[] = {
      {"10.10.0.0/24", "10.10.0.1", true},    {"10.10.0.0/24", "10.10.1.1", false},
      {"10.0.0.0/8", "10.255.255.255", true}, {"0.0.0.0/0", "192.0.2.1", true},
      {"10.10.0.0/25", "10.10.0.128", false}, {"10.10.0.128/25", "10.10.0.200", true},
      {"fd00::/64", "fd00::1", true},         {"fd00::/64", "fd00:0:0:1::1", false},
      {"10.10.0.0/24", "fd00::1", false},     {"192.0.2.7/32", "192.0.2.7", true},
  };
  for (const auto& c : cases) {
    INFO(c.prefix << " " << c.addr);
    CHECK(parse_prefix(c.prefix).contains(parse_ip(c.addr)) == c.inside);
  }
}

TEST_CASE("host bits are an error unless allowed") {
  CHECK_THROWS_WITH(parse_prefix("10.10.0.5/24"), Catch::Contains("did you mean 10.10.0.0/24"));
  CHECK(parse_prefix("10.10.0.5/24", true).str() == "10.10.0.0/24");
  CHECK(parse_prefix("10.10.0.5").length == 32);
}

TEST_CASE("bad addresses and lengths are rejected") {
  for (const char* bad : {"10.10.0/24", "10.10.0.0/33", "10.10.0.0/x", "fd00::/129", "host"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_prefix(bad), std::invalid_argument);
  }
  CHECK_FALSE(try_parse_ip("300.1.1.1").has_value());
  CHECK(parse_ip("fe80::1").family == 6);
}

TEST_CASE("a network needs its prefix length") {
  CHECK(parse_network("10.10.0.0/24").str() == "10.10.0.0/24");
  CHECK(parse_network("192.0.2.7/32").length == 32);  // one host, said explicitly
  CHECK_THROWS_WITH(parse_network("10.0.0.0"), Catch::Contains("'10.0.0.0' has no prefix length") &&
                                                   Catch::Contains("10.0.0.0/24") &&
                                                   Catch::Contains("/32"));
  CHECK_THROWS_WITH(parse_network("fd10::"), Catch::Contains("fd10::/64"));
  CHECK_THROWS_WITH(parse_network("10.10.0.5/24"), Catch::Contains("host bits"));
  CHECK_THROWS_AS(parse_network("host"), std::invalid_argument);
}
