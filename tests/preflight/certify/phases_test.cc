// certify's phase list as data: the model step's dependency on the plane it
// trains over (SKIP naming the failure), and its deadline from the profile.
#include <catch2/catch.hpp>

#include "formats/profile.h"
#include "preflight/certify/phases.h"

using namespace hn;
using preflight::certify::Coordinator;
using preflight::certify::Phase;

namespace {

Phase find(const std::vector<Phase>& phases, const std::string& name) {
  for (const auto& p : phases)
    if (p.name == name) return p;
  FAIL("no phase " << name);
  return {};
}

const char* kProfile =
    "version: 1\n"
    "planes: [{name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}]\n"
    "model: {timeout_s: 40}\n";

}  // namespace

TEST_CASE("phases: the model step is SKIP naming the failed links or collectives of its plane") {
  preflight::certify::CertifyOptions o;
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile(kProfile, "p.yaml"));
  const Phase model = find(preflight::certify::certify_phases(o), "model");
  CHECK(model.layers == std::vector<reports::Layer>{reports::Layer::kL1, reports::Layer::kL2});
  // Its deadline is the model section's timeout plus forming its links.
  CHECK(model.deadline >= std::chrono::seconds(40) + o.link_budget);
  CHECK(model.deadline < std::chrono::seconds(120));
  Coordinator co;
  co.options = &o;
  auto runs = model.plan(co);
  CHECK(runs.skip_reason.empty());
  CHECK_THAT(runs.args, Catch::Contains("\"plane\":\"param\""));
  co.planes["param"].blocked_by = "COMM-LINK-PAIR host0 -> host2";
  auto skipped = model.plan(co);
  CHECK_THAT(skipped.skip_reason, Catch::Contains("plane param"));
  CHECK_THAT(skipped.skip_reason, Catch::Contains("COMM-LINK-PAIR host0 -> host2"));
  // No plane to train over is a SKIP that says so, not a silent pass.
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile("version: 1\n", "p.yaml"));
  Coordinator none;
  none.options = &o;
  CHECK_THAT(find(preflight::certify::certify_phases(o), "model").plan(none).skip_reason,
             Catch::Contains("no parameter or data plane"));
}

TEST_CASE("phases: the default model on a world it does not fit is SKIP saying how to run it") {
  preflight::certify::CertifyOptions o;
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile(
      "version: 1\nplanes: [{name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}]\n",
      "p.yaml"));
  const Phase model = find(preflight::certify::certify_phases(o), "model");
  Coordinator co;
  co.options = &o;
  co.plan.hosts.push_back({"h", "k", "", {0, 1, 2}});
  co.plan.host_of = {0, 0, 0};
  // batch 16 over 3 replicas x 2 micro-batches does not divide.
  const auto three = model.plan(co);
  CHECK_THAT(three.skip_reason, Catch::Contains("the default model does not fit this job"));
  CHECK_THAT(three.skip_reason, Catch::Contains("--layout"));
  co.plan.hosts[0].ranks = {0, 1};
  co.plan.host_of = {0, 0};
  CHECK(model.plan(co).skip_reason.empty());
}
