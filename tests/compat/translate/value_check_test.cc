// Typed values by their rule rows, and fitting numbers into ranges.
#include "compat/translate/value_check.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace hn::compat::translate;

namespace {
VarSpec int_spec(std::optional<long long> min, std::optional<long long> max) {
  VarSpec v;
  v.name = "X";
  v.library = "lib";
  v.type = "int";
  v.min = min;
  v.max = max;
  return v;
}
}  // namespace

TEST_CASE("value check: each type accepts its grammar and names what it expects") {
  struct Case {
    const char* type;
    const char* good;
    const char* bad;
    const char* expect;
  };
  const Case cases[] = {
      {"int", "0x10", "1e3", "expected an integer"},
      {"bool", "1", "true", "expected 0 or 1"},
      {"ip", "::1", "10.0.0", "not an IPv4 or IPv6 address"},
      {"host-port", "[fd00::1]:5000", "host", "expected host:port"},
      {"host-port", "10.0.0.1:5000", "10.0.0.1:0", "is not a port"},
      {"ports", "60000-60031", "0", "port 0 is not usable"},
      {"ifname", "^=eth0", "eth 0", "not an interface name"},
      {"ifname-list", "eth0,eth1", "^eth0", "not an interface name"},
      {"ifname-ompi", "eth0,10.0.0.0/8", "10.0.0.0/33", "not a CIDR subnet"},
      {"ifname-ompi", "fd00::/64", "eth0/x", "not a CIDR subnet"},
      {"ifname-ccl", "mlx5_0,^mlx5_2", "mlx5_0,", "not an interface name"},
      {"nccl-algo", "^Tree", "Trie", "unknown NCCL algorithm"},
      {"hccl-algo", "level0:NA;level1:NHR_V1", "level1:x", "unknown HCCL algorithm"},
      {"ib-hca", "=mlx5_0:1:0:0", "mlx5_0:1:2:3:4", "is not <hca>[:port[:rail[:plane]]]"},
      {"string", "anything at all", nullptr, nullptr},
  };
  for (const auto& c : cases) {
    INFO(c.type << " " << c.good);
    VarSpec v;
    v.name = "X";
    v.type = c.type;
    CHECK_NOTHROW(parse_typed(v, c.good, "a2"));
    if (c.bad) CHECK_THROWS_WITH(parse_typed(v, c.bad, "a2"), Catch::Contains(c.expect));
  }
}

TEST_CASE("value check: enums and token lists, with and without case") {
  VarSpec e;
  e.type = "enum";
  e.values = {"WARN", "INFO"};
  e.case_insensitive = true;
  CHECK(parse_typed(e, "info", "a2").text == "INFO");
  e.case_insensitive = false;
  CHECK_THROWS_WITH(parse_typed(e, "info", "a2"),
                    Catch::Contains("'info' is not one of WARN, INFO"));
  e.also_int = true;
  CHECK(parse_typed(e, "3", "a2").number == 3);
  VarSpec t;
  t.type = "tokens";
  t.values = {"LL", "LL128", "Simple"};
  t.case_insensitive = true;
  CHECK(parse_typed(t, "^ll,simple", "a2").text == "^LL,Simple");
  CHECK_THROWS_AS(parse_typed(t, "^", "a2"), std::invalid_argument);
  CHECK_THROWS_AS(parse_typed(t, "LL,XL", "a2"), std::invalid_argument);
}

TEST_CASE("value check: range, infinity and platform on the source side") {
  VarSpec v = int_spec(0, 31);
  v.infinite_at = {0};
  v.infinite_from = 32;
  ParsedValue p = parse_typed(v, "0", "a2");
  CHECK(p.infinite);
  CHECK_FALSE(p.outside_range);
  p = parse_typed(v, "99", "a2");
  CHECK(p.infinite);
  CHECK(p.outside_range);
  p = parse_typed(v, "-1", "a2");
  CHECK_FALSE(p.infinite);
  CHECK(p.outside_range);
  VarSpec h = int_spec(5, 20);
  h.platforms.push_back(
      PlatformRange{{"atlas-training"}, std::nullopt, 24, std::nullopt, std::nullopt, "", {}});
  CHECK(parse_typed(h, "22", "a2").outside_range);
  CHECK_FALSE(parse_typed(h, "22", "atlas-training").outside_range);
}

TEST_CASE("value check: fitting numbers into a target range") {
  VarSpec v = int_spec(5, 20);
  CHECK(fit_number(v, 5, false, "a2").status == FitResult::kOk);
  CHECK(fit_number(v, 20, false, "a2").status == FitResult::kOk);
  FitResult f = fit_number(v, 4, false, "a2");
  CHECK(f.status == FitResult::kClamped);
  CHECK(f.value == 5);
  f = fit_number(v, 21, false, "a2");
  CHECK(f.value == 20);
  CHECK(f.detail == "lowered to the maximum 20");
  f = fit_number(v, 3, true, "a2");  // "no limit" becomes the longest, not the shortest
  CHECK(f.status == FitResult::kClamped);
  CHECK(f.value == 20);

  VarSpec tc = int_spec(0, 255);
  tc.multiple_of = 4;
  CHECK(fit_number(tc, 106, false, "a2").value == 104);
  CHECK(fit_number(tc, 106, false, "a2").status == FitResult::kRounded);
  CHECK(fit_number(tc, 255, false, "a2").value == 252);
  f = fit_number(tc, 300, false, "a2");
  CHECK(f.status == FitResult::kClamped);
  CHECK(f.value == 252);
  CHECK(fit_number(tc, 3, false, "a2").value == 0);

  VarSpec ex = int_spec(0, 2147483647);
  ex.infinite_at = {0};
  ex.platforms.push_back(PlatformRange{{"atlas-training"}, 0, 17340, true, 68, "", {}});
  CHECK(fit_number(ex, 0, true, "a2").value == 0);
  CHECK(fit_number(ex, 600, false, "atlas-training").value == 544);
  CHECK(fit_number(ex, 1, false, "atlas-training").value == 68);
  CHECK(fit_number(ex, 0, false, "atlas-training").value == 68);
  CHECK(fit_number(ex, 0, true, "atlas-training").value == 17340);
  CHECK(fit_number(ex, 99999, false, "atlas-training").value == 17340);
  CHECK(fit_number(ex, 17340, false, "atlas-training").status == FitResult::kOk);

  VarSpec open = int_spec(1, std::nullopt);
  CHECK(fit_number(open, 1000000, false, "a2").status == FitResult::kOk);
  CHECK(fit_number(open, 0, false, "a2").value == 1);
}

TEST_CASE("value check: durations read the way people configure them") {
  CHECK(format_seconds(ib_timeout_seconds(5)) == "131 µs");
  CHECK(format_seconds(ib_timeout_seconds(14)) == "67.1 ms");
  CHECK(format_seconds(ib_timeout_seconds(20)) == "4.3 s");
  CHECK(format_seconds(143.1) == "143.1 s");
  CHECK(format_seconds(ib_timeout_seconds(31)) == "2.4 h");
  CHECK(format_seconds(ib_timeout_seconds(99)) == "8.2e+16 years");
  CHECK(format_seconds(INFINITY) == "infinite");
}

TEST_CASE("value check: an enum's values can differ by platform (HCCL_OP_EXPANSION_MODE)") {
  // CANN 9: Atlas 350 and Ascend 950 expand on the CCU; A2/A3 do not.
  VarSpec v;
  v.name = "HCCL_OP_EXPANSION_MODE";
  v.library = "hccl";
  v.type = "enum";
  v.values = {"AI_CPU", "AIV", "HOST", "HOST_TS"};
  PlatformRange ccu;
  ccu.platforms = {"atlas-350", "atlas-950"};
  ccu.values = {"AI_CPU", "AIV", "CCU_MS", "CCU_SCHED"};
  v.platforms.push_back(ccu);
  CHECK(parse_typed(v, "CCU_SCHED", "atlas-950").text == "CCU_SCHED");
  CHECK(parse_typed(v, "CCU_MS", "atlas-350").text == "CCU_MS");
  CHECK_THROWS_WITH(parse_typed(v, "CCU_SCHED", "a2"),
                    Catch::Contains("not one of AI_CPU, AIV, HOST, HOST_TS on a2") &&
                        Catch::Contains("other platforms take it"));
  CHECK_THROWS_WITH(parse_typed(v, "HOST", "atlas-950"), Catch::Contains("CCU_SCHED"));
  CHECK(parse_typed(v, "HOST", "a3").text == "HOST");
}
