// The procfs reader of rp_filter/arp_ignore/arp_announce on a fixture tree.
#include <catch2/catch.hpp>

#include "stack/l6_netplane/source.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::netplane;

TEST_CASE("ipv4_conf reads all, default and each NIC, unreadable values are absent") {
  hn::test::TempDir proc;
  auto put = [&](const std::string& nic, const std::string& key, const std::string& v) {
    proc.write("sys/net/ipv4/conf/" + nic + "/" + key, v);
  };
  for (const std::string nic : {"all", "default", "eth0", "eth1.100"}) {
    put(nic, "rp_filter", nic == "eth0" ? "1\n" : "0\n");
    put(nic, "arp_ignore", "1\n");
    put(nic, "arp_announce", "2\n");
  }
  put("eth9", "rp_filter", "garbage\n");
  put("eth9", "arp_ignore", "2\n");
  auto conf = make_live_netplane_source(proc.path())->ipv4_conf();
  REQUIRE(conf.size() == 5);
  CHECK(conf.at("eth0").rp_filter == 1);
  CHECK(conf.at("all").rp_filter == 0);
  CHECK(conf.at("eth1.100").arp_announce == 2);
  CHECK_FALSE(conf.at("eth9").rp_filter.has_value());
  CHECK(conf.at("eth9").arp_ignore == 2);
  CHECK_FALSE(conf.at("eth9").arp_announce.has_value());
  CHECK(make_live_netplane_source(proc.path() + "/none")->ipv4_conf().empty());
}

TEST_CASE("ipv4_conf on this machine has all and default") {
  auto conf = make_live_netplane_source()->ipv4_conf();
  REQUIRE(conf.count("all") == 1);
  CHECK(conf.at("all").rp_filter.has_value());
  CHECK(conf.count("default") == 1);
}
