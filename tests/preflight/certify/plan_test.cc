#include "preflight/certify/plan.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"

using namespace hn;
using preflight::certify::build_plan;
using preflight::certify::Hello;

TEST_CASE("plan: ranks grouped by host key, leaders are the lowest ranks, nodes by hostname") {
  auto p = formats::parse_profile("version: 1\nnodes: [{name: gpu01}, {name: gpu02}]\n", "p.yaml");
  std::vector<Hello> hellos = {
      {"gpu02.rack7", "k2", {}}, {"gpu01", "k1", {}}, {"gpu02.rack7", "k2", {}}, {"gpu01", "k1", {}}};
  auto plan = build_plan(hellos, p);
  REQUIRE(plan.hosts.size() == 2);
  CHECK(plan.hosts[0].name == "gpu02.rack7");
  CHECK(plan.hosts[0].node == "gpu02");  // short form of the hostname
  CHECK(plan.hosts[0].ranks == std::vector<int>{0, 2});
  CHECK(plan.hosts[1].ranks == std::vector<int>{1, 3});
  CHECK(plan.leaders() == std::vector<int>{0, 1});
  CHECK(plan.is_leader(1));
  CHECK_FALSE(plan.is_leader(3));
  CHECK(plan.host_name(3) == "gpu01");
}

TEST_CASE("plan: a host the profile does not declare is bad input naming it") {
  auto p = formats::parse_profile("version: 1\nnodes: [{name: gpu01}]\n", "p.yaml");
  try {
    build_plan({{"gpu01", "a", {}}, {"gpu07", "b", {}}}, p);
    FAIL("accepted an undeclared host");
  } catch (const compat::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("gpu07 is none of the 1 nodes the profile declares"));
  }
  // Without nodes in the profile any host is fine.
  auto open = formats::parse_profile("version: 1\n", "p.yaml");
  CHECK(build_plan({{"x", "a", {}}, {"y", "b", {}}}, open).hosts.size() == 2);
}

TEST_CASE("plan: the local hello keys on hostname, boot and network namespace") {
  auto h = preflight::certify::local_hello();
  CHECK_FALSE(h.hostname.empty());
  CHECK(h.host_key.rfind(h.hostname + "|", 0) == 0);
  CHECK(std::count(h.host_key.begin(), h.host_key.end(), '|') == 2);
}

TEST_CASE("plan: a layout that does not fit the job is bad input, naming where it came from") {
  preflight::certify::CertifyOptions o;
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile("version: 1\n", "p.yaml"));
  auto world = [](int n) {
    preflight::certify::JobPlan plan;
    plan.hosts.push_back({"h", "k", "", {}, std::nullopt});
    for (int r = 0; r < n; ++r) {
      plan.hosts[0].ranks.push_back(r);
      plan.host_of.push_back(0);
    }
    return plan;
  };
  // Nothing configured: nothing to check (the default model does not fit 3
  // replicas: the model phase is SKIP then, see phases_test.cc).
  CHECK_NOTHROW(preflight::certify::check_layout(o, world(3)));
  o.layout = "tp=2,pp=2";
  CHECK_NOTHROW(preflight::certify::check_layout(o, world(8)));  // dp = 2 from the world
  try {
    preflight::certify::check_layout(o, world(6));
    FAIL("accepted tp=2,pp=2 on 6 ranks");
  } catch (const compat::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("--layout"));
  }
}
