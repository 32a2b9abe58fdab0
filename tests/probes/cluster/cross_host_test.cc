#include "probes/cluster/cross_host.h"

#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;
using test::addr;
using test::up_link;

namespace {

const char* kProfile =
    "version: 1\n"
    "nodes:\n"
    "  - {name: n0, addresses: {param: 10.10.0.1}}\n"
    "  - {name: n1, addresses: {param: 10.10.0.2}}\n"
    "  - {name: n2, addresses: {param: 10.10.0.3}}\n"
    "planes:\n"
    "  - {name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}\n"
    "  - {name: mgmt, type: management, nic: eth0}\n";

probes::NodeReadings host(const formats::Profile& p, const std::string& name,
                          const std::string& node, const std::string& param_ip) {
  probes::NodeReadings h;
  h.name = name;
  h.spec = node.empty() ? nullptr : p.find_node(node);
  h.links = {up_link("eth0", 2), up_link("eth1", 3)};
  h.addresses = {addr("eth0", "192.0.2." + std::to_string(10 + name.back() - '0')),
                 addr("eth1", param_ip)};
  return h;
}

std::vector<reports::Finding> with_status(const std::vector<reports::Finding>& fs, Status s) {
  std::vector<reports::Finding> out;
  for (const auto& f : fs)
    if (f.status == s) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("cross-host: distinct addresses pass, one address on two hosts fails naming both") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto ok = probes::cluster::check_duplicate_addresses(
      p, {host(p, "h0", "n0", "10.10.0.1"), host(p, "h1", "n1", "10.10.0.2")});
  CHECK(with_status(ok, Status::kFail).empty());
  CHECK(with_status(ok, Status::kPass).size() == 2);  // both planes
  auto dup = probes::cluster::check_duplicate_addresses(
      p, {host(p, "h0", "n0", "10.10.0.1"), host(p, "h1", "n1", "10.10.0.2"),
          host(p, "h2", "n2", "10.10.0.2")});
  auto bad = with_status(dup, Status::kFail);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].code == "NET-XHOST-ADDRESS-DUP");
  CHECK(bad[0].evidence.at("members") == "h1 (eth1), h2 (eth1)");
  CHECK(bad[0].evidence.at("plane") == "param");
}

TEST_CASE("cross-host: a plane NIC whose address is outside the subnet fails") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto fs = probes::cluster::check_plane_subnets(
      p, {host(p, "h0", "n0", "10.10.0.1"), host(p, "h1", "n1", "10.11.0.2")});
  auto bad = with_status(fs, Status::kFail);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].code == "NET-XHOST-SUBNET");
  CHECK(bad[0].host == "h1");
  CHECK_THAT(bad[0].message,
             Catch::Contains("10.11.0.2, outside the plane's subnet(s) 10.10.0.0/24"));
}

TEST_CASE("cross-host: two hosts resolving to one profile node fail") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto fs = probes::cluster::check_same_node(
      {host(p, "gpu1", "n0", "10.10.0.1"), host(p, "gpu1#2", "n0", "10.10.0.9")});
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].status == Status::kFail);
  CHECK(fs[0].evidence.at("node") == "n0");
  CHECK(fs[0].evidence.at("members") == "gpu1, gpu1#2");
  // A profile without nodes: nothing to say.
  CHECK(probes::cluster::check_same_node({host(p, "a", "", "10.10.0.1")}).empty());
}

TEST_CASE("cross-host: declared nodes absent from the job are a coverage warning") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto all = probes::cluster::check_coverage(
      p, {host(p, "h0", "n0", "10.10.0.1"), host(p, "h1", "n1", "10.10.0.2"),
          host(p, "h2", "n2", "10.10.0.3")});
  REQUIRE(all.size() == 1);
  CHECK(all[0].status == Status::kPass);
  auto some = probes::cluster::check_coverage(p, {host(p, "h0", "n0", "10.10.0.1")});
  REQUIRE(some.size() == 1);
  CHECK(some[0].status == Status::kWarn);
  CHECK(some[0].evidence.at("missing") == "n1, n2");
}
