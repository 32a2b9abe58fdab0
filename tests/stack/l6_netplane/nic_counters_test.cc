#include "stack/l6_netplane/nic_counters.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "stack/l7_physical/source.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::netplane;

namespace {
void write_stats(const std::string& root, const std::string& nic, const std::string& rx,
                 const std::string& tx) {
  std::filesystem::create_directories(root + "/" + nic + "/statistics");
  std::ofstream(root + "/" + nic + "/statistics/rx_bytes") << rx;
  std::ofstream(root + "/" + nic + "/statistics/tx_bytes") << tx;
}
}  // namespace

TEST_CASE("NIC counters: read from a sysfs tree, unreadable NICs left out") {
  hn::test::TempDir dir;
  write_stats(dir.path(), "eth0", "100\n", "200\n");
  write_stats(dir.path(), "eth1", "18446744073709551000\n", "5\n");
  write_stats(dir.path(), "bad0", "x\n", "1\n");
  std::filesystem::create_directories(dir.path() + "/gone0");  // no statistics
  auto c = make_live_nic_counters(dir.path())->read();
  REQUIRE(c.size() == 2);
  CHECK(c.at("eth0") == NicBytes{100, 200});
  CHECK(c.at("eth1").rx == 18446744073709551000ull);
  CHECK_THROWS_AS(make_live_nic_counters(dir.path() + "/missing")->read(),
                  hn::stack::physical::SourceError);
}

TEST_CASE("NIC counters: this namespace's loopback is read live") {
  auto c = make_live_nic_counters()->read();
  CHECK(c.count("lo") == 1);
}

TEST_CASE("NIC counters: delta per NIC - a counter that went back or a new NIC count from zero") {
  NicCounters before{{"eth0", {10, 20}}, {"eth1", {500, 500}}};
  NicCounters after{{"eth0", {15, 1020}}, {"eth1", {100, 100}}, {"eth2", {7, 9}}};
  auto d = counter_delta(before, after);
  CHECK(d.at("eth0") == NicBytes{5, 1000});
  CHECK(d.at("eth1") == NicBytes{0, 0});
  CHECK(d.at("eth2") == NicBytes{7, 9});
}

TEST_CASE("NIC counters: a snapshot's links replay as fixed readings") {
  hn::stack::physical::Link l;
  l.name = "ens1f0";
  l.rx_bytes = 3;
  l.tx_bytes = 4;
  auto src = make_snapshot_nic_counters(nic_counters_from_links({l}));
  CHECK(src->read().at("ens1f0") == NicBytes{3, 4});
}
