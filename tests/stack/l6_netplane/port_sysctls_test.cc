// The kernel's ephemeral-port settings, from files shaped like procfs and live.
#include "stack/l6_netplane/port_sysctls.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "stack/l7_physical/source.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::netplane;

TEST_CASE("port sysctls: the two file formats") {
  CHECK(parse_port_range_text("32768\t60999\n") == std::pair<long long, long long>{32768, 60999});
  CHECK(parse_port_range_text("1024 65535") == std::pair<long long, long long>{1024, 65535});
  for (const char* bad : {"", "32768", "a b", "60999 32768", "1 70000"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_port_range_text(bad), std::invalid_argument);
  }
  CHECK(parse_reserved_ports_text("\n").empty());
  auto r = parse_reserved_ports_text("8000-8010,60000-60031,29500\n");
  REQUIRE(r.size() == 3);
  CHECK(r[1] == std::pair<long long, long long>{60000, 60031});
  CHECK(r[2] == std::pair<long long, long long>{29500, 29500});
  CHECK_THROWS_AS(parse_reserved_ports_text("10-5"), std::invalid_argument);
  CHECK_THROWS_AS(parse_reserved_ports_text("x"), std::invalid_argument);
}

TEST_CASE("port sysctls: read from a procfs tree, a missing range is a SourceError") {
  hn::test::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/sys/net/ipv4");
  CHECK_THROWS_WITH(read_local_port_config(dir.path()), Catch::Contains("ip_local_port_range"));
  dir.write("sys/net/ipv4/ip_local_port_range", "40000\t50000\n");
  LocalPortConfig c = read_local_port_config(dir.path());
  CHECK(c.low == 40000);
  CHECK(c.high == 50000);
  CHECK(c.reserved.empty());  // no reserved-ports file: nothing reserved
  dir.write("sys/net/ipv4/ip_local_reserved_ports", "45000-45031\n");
  CHECK(read_local_port_config(dir.path()).reserved.size() == 1);
  dir.write("sys/net/ipv4/ip_local_port_range", "garbage\n");
  CHECK_THROWS_AS(read_local_port_config(dir.path()), hn::stack::physical::SourceError);
}

TEST_CASE("port sysctls: this host's live settings are a sane range") {
  if (!std::filesystem::exists("/proc/sys/net/ipv4/ip_local_port_range"))
    hn::test::skip("no /proc/sys/net/ipv4/ip_local_port_range in this environment");
  LocalPortConfig c = read_local_port_config();
  CHECK(c.low >= 1);
  CHECK(c.high <= 65535);
  CHECK(c.low <= c.high);
}
