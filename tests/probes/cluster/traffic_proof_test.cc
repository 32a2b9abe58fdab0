#include "probes/cluster/traffic_proof.h"

#include <catch2/catch.hpp>

using namespace hn::probes::cluster;
using hn::reports::Status;

namespace {

HostTraffic host(const std::string& name, std::uint64_t eth0_tx, std::uint64_t eth1_tx,
                 std::uint64_t expected) {
  HostTraffic h;
  h.host = name;
  h.plane_nics = {"eth1"};
  h.address = "10.10.0.1";
  h.delta = {{"eth0", {100, eth0_tx}}, {"eth1", {eth1_tx, eth1_tx}}, {"lo", {7, 7}}};
  h.expected_tx = expected;
  return h;
}

}  // namespace

TEST_CASE("traffic proof: the plane NIC carried the bytes") {
  auto r = check_traffic("param", {host("host0", 3000, 22'500'000, 22'400'000)}, 0.95, "c");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].status == Status::kPass);
  CHECK(r.findings[0].host == "host0");
  CHECK_THAT(r.findings[0].message, Catch::Contains("100.4% of the 22.4 MB"));
  // Bytes per NIC are figures of the certificate.
  bool eth1 = false;
  for (const auto& m : r.metrics)
    if (m.name == "nic.tx_bytes" && m.labels.at("nic") == "eth1") {
      eth1 = true;
      CHECK(m.value == 22'500'000);
      CHECK(m.labels.at("host") == "host0");
      CHECK(m.labels.at("plane") == "param");
    }
  CHECK(eth1);
}

TEST_CASE("traffic proof: a route through the management NIC fails and names it") {
  auto r = check_traffic("param", {host("host0", 22'450'000, 9000, 22'400'000)}, 0.95, "c");
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings[0];
  CHECK(f.status == Status::kFail);
  CHECK(f.code == "NET-TRAFFIC-PLANE");
  CHECK(f.evidence.at("carrier") == "eth0");
  CHECK_THAT(f.message, Catch::Contains("eth0 carried 22.4 MB"));
  CHECK_THAT(f.remediation, Catch::Contains("ip route get <peer> from 10.10.0.1"));
}

TEST_CASE("traffic proof: 94% is not enough, 95% is") {
  CHECK(check_traffic("p", {host("h", 0, 940, 1000)}, 0.95, "c").findings[0].status ==
        Status::kFail);
  CHECK(check_traffic("p", {host("h", 0, 950, 1000)}, 0.95, "c").findings[0].status ==
        Status::kPass);
}

TEST_CASE("traffic proof: a host that sent nothing to other hosts is not judged") {
  auto r = check_traffic("param", {host("host0", 0, 0, 0)}, 0.95, "c");
  CHECK(r.findings.empty());
}

TEST_CASE("bytes_text") {
  CHECK(bytes_text(999) == "999 B");
  CHECK(bytes_text(22'400'000) == "22.4 MB");
  CHECK(bytes_text(1'500'000'000) == "1.50 GB");
}
