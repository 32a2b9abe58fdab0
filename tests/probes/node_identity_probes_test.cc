#include "probes/node_identity_probes.h"

#include "compat/input_error.h"
#include "tests/probes/net_context.h"

using namespace hn;
using reports::Status;

namespace {

test::NetFixture cluster(const std::string& hostname, int nodes = 2) {
  test::NetFixture f;
  f.profile_yaml = "version: 1\nnodes:\n";
  for (int i = 1; i <= nodes; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "gpu%02d", i);
    f.profile_yaml += "  - {name: " + std::string(name) + ", addresses: {mgmt: 10.30.0." +
                      std::to_string(i) + "}}\n";
  }
  f.profile_yaml +=
      "planes:\n  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n";
  f.node = hostname;
  return f;
}

}  // namespace

TEST_CASE("identity: a host the profile's nodes do not list is a WARN naming them") {
  auto fs = probes::check_node_identity(cluster("vm").context());
  REQUIRE(fs.size() == 1);
  const auto& f = fs[0];
  CHECK(f.code == "PROFILE-NODE");
  CHECK(f.status == Status::kWarn);
  CHECK(f.entity == "vm");
  CHECK(f.layer == reports::Layer::kL5);
  CHECK(f.message.find("this host (vm) is none of the 2 nodes p.yaml declares (gpu01, gpu02)") ==
        0);
  CHECK(f.message.find("nodes[].addresses") != std::string::npos);
  CHECK(f.message.find("nodes[].nics") != std::string::npos);
  CHECK(f.remediation.find("--node NAME") != std::string::npos);
  // A large cluster is not listed in full.
  fs = probes::check_node_identity(cluster("vm", 40).context());
  CHECK(fs[0].evidence.at("declared").find("gpu16, ... (24 more)") != std::string::npos);
}

TEST_CASE("identity: a listed host passes and a profile without nodes says nothing") {
  auto fs = probes::check_node_identity(cluster("gpu02.rack7.example").context());  // short name
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].status == Status::kPass);
  CHECK(fs[0].message == "checked as node gpu02 of the profile (hostname gpu02.rack7.example)");
  test::NetFixture bare;
  bare.profile_yaml =
      "version: 1\nplanes:\n  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n";
  CHECK(probes::check_node_identity(bare.context()).empty());
}

TEST_CASE("identity: --node must name a declared node, and may not be empty") {
  auto profile = formats::parse_profile(cluster("vm").profile_yaml, "p.yaml");
  CHECK(probes::identify_node(profile, "vm", std::string("gpu01")) == &profile.nodes[0]);
  CHECK(probes::identify_node(profile, "vm") == nullptr);
  CHECK_THROWS_WITH(probes::identify_node(profile, "gpu01", std::string("")),
                    Catch::Contains("--node") && Catch::Contains("gpu01, gpu02"));
  CHECK_THROWS_AS(probes::identify_node(profile, "gpu01", std::string("")), compat::InputError);
  CHECK_THROWS_WITH(probes::identify_node(profile, "vm", std::string("gpu09")),
                    Catch::Contains("not declared (declared: gpu01, gpu02)"));
}

TEST_CASE("identity: a plane without a subnet is said once, an auto plane is not") {
  test::NetFixture f;
  f.profile_yaml =
      "version: 1\nplanes:\n  - {name: param, type: parameter, nic: ens1f0}\n"
      "  - {name: mgmt, type: management, subnet: 10.30.0.0/24, nic: eth0}\n"
      "  - {name: any, type: business, nic: auto}\n";
  auto fs = probes::check_node_identity(f.context());
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "PROFILE-PLANE-SUBNET");
  CHECK(fs[0].status == Status::kWarn);
  CHECK(fs[0].entity == "plane param");
  CHECK_THAT(fs[0].message, Catch::Contains("p.yaml:3) has no subnet"));
}
