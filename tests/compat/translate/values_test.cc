// The small value grammars: integers, interface specs, port specs, key:value lists.
#include "compat/translate/values.h"

#include <catch2/catch.hpp>

using namespace hn::compat::translate;

TEST_CASE("values: integers are decimal or 0x-hex and nothing else") {
  CHECK(parse_int("20") == 20);
  CHECK(parse_int("-1") == -1);
  CHECK(parse_int("+7") == 7);
  CHECK(parse_int("0x800000") == 8388608);
  CHECK(parse_int("0X1f") == 31);
  for (const char* bad :
       {"", "1.5", "8M", " 1", "1 ", "0x", "-", "abc", "99999999999999999999", "0x1g"}) {
    INFO(bad);
    CHECK_FALSE(parse_int(bad));
  }
}

TEST_CASE("values: interface specs in the four NCCL/HCCL forms") {
  struct Case {
    const char* text;
    bool exclude, exact;
    size_t items;
  };
  for (const Case& c : {Case{"eth", false, false, 1}, Case{"^docker,lo", true, false, 2},
                        Case{"=eth0,eth1", false, true, 2}, Case{"^=eth0", true, true, 1}}) {
    INFO(c.text);
    IfnameSpec s = parse_ifname_spec(c.text);
    CHECK(s.exclude == c.exclude);
    CHECK(s.exact == c.exact);
    CHECK(s.items.size() == c.items);
    CHECK(format_ifname_spec(s) == c.text);
  }
  for (const char* bad : {"", "^", "=", "^=", "eth0,", "a b", "eth0/1", "averyveryverylongname0"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_ifname_spec(bad), std::invalid_argument);
  }
}

TEST_CASE("values: which NICs a spec selects") {
  CHECK(ifname_selects(parse_ifname_spec("eth"), "eth0"));
  CHECK(ifname_selects(parse_ifname_spec("eth"), "eth10"));
  CHECK_FALSE(ifname_selects(parse_ifname_spec("eth"), "ens1f0"));
  CHECK(ifname_selects(parse_ifname_spec("^docker,lo"), "ens1f0"));
  CHECK_FALSE(ifname_selects(parse_ifname_spec("^docker,lo"), "docker0"));
  CHECK_FALSE(ifname_selects(parse_ifname_spec("^docker,lo"), "lo"));
  CHECK(ifname_selects(parse_ifname_spec("=eth0"), "eth0"));
  CHECK_FALSE(ifname_selects(parse_ifname_spec("=eth0"), "eth01"));
  CHECK(ifname_selects(parse_ifname_spec("^=eth0"), "eth01"));
  CHECK_FALSE(ifname_selects(parse_ifname_spec("^=eth0"), "eth0"));
}

TEST_CASE("values: port specs") {
  CHECK(parse_port_spec("auto").is_auto);
  CHECK(parse_port_spec("60000").ranges == std::vector<PortRange>{{60000, 60000}});
  CHECK(parse_port_spec("60000-60031,61000").ranges ==
        std::vector<PortRange>{{60000, 60031}, {61000, 61000}});
  CHECK(format_port_ranges({{1, 1}, {5, 9}}) == "1,5-9");
  for (const char* bad : {"", "a-b", "70000", "5-", "-5", "9-1", "1,,2", " 1"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_port_spec(bad), std::invalid_argument);
  }
}

TEST_CASE("values: the kernel's port files") {
  CHECK(parse_local_port_range("32768\t60999\n") == PortRange{32768, 60999});
  CHECK(parse_local_port_range("1024-65535") == PortRange{1024, 65535});
  CHECK_THROWS_AS(parse_local_port_range("32768"), std::invalid_argument);
  CHECK_THROWS_AS(parse_local_port_range("2 1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_local_port_range("1 2 3"), std::invalid_argument);
  CHECK(parse_port_list("\n").empty());
  CHECK(parse_port_list("60000-60031,29500\n") ==
        std::vector<PortRange>{{60000, 60031}, {29500, 29500}});
}

TEST_CASE("values: the ephemeral ports a range overlaps, minus reserved ones") {
  PortRange eph{32768, 60999};
  CHECK(ephemeral_overlap({60000, 60031}, eph, {}) == std::vector<PortRange>{{60000, 60031}});
  CHECK(ephemeral_overlap({60990, 61010}, eph, {}) == std::vector<PortRange>{{60990, 60999}});
  CHECK(ephemeral_overlap({61000, 61031}, eph, {}).empty());
  CHECK(ephemeral_overlap({29500, 29500}, eph, {}).empty());
  CHECK(ephemeral_overlap({60000, 60031}, eph, {{60000, 60031}}).empty());
  CHECK(ephemeral_overlap({60000, 60031}, eph, {{60010, 60019}}) ==
        std::vector<PortRange>{{60000, 60009}, {60020, 60031}});
  CHECK(ephemeral_overlap({60000, 60031}, eph, {{59000, 60015}, {60031, 60031}}) ==
        std::vector<PortRange>{{60016, 60030}});
}

TEST_CASE("values: Key:value lists") {
  auto kv =
      parse_kv("MaxCnt:3,HoldTime:5000,IntervalTime:1000", {"MaxCnt", "HoldTime", "IntervalTime"});
  CHECK(kv.at("MaxCnt") == 3);
  CHECK(kv.at("HoldTime") == 5000);
  CHECK_THROWS_WITH(parse_kv("MaxCnt:3,MaxCnt:4", {"MaxCnt"}), Catch::Contains("given twice"));
  CHECK_THROWS_WITH(parse_kv("MaxCnt=3", {"MaxCnt"}), Catch::Contains("is not Key:value"));
  CHECK_THROWS_WITH(parse_kv("MaxCnt:x", {"MaxCnt"}), Catch::Contains("is not an integer"));
  CHECK_THROWS_WITH(parse_kv("Max:1", {"MaxCnt"}), Catch::Contains("unknown key 'Max'"));
}

TEST_CASE("values: addresses") {
  CHECK(is_ip_address("10.10.0.1"));
  CHECK(is_ip_address("fe80::1"));
  CHECK_FALSE(is_ip_address("10.10.0.256"));
  CHECK_FALSE(is_ip_address("node0"));
}
