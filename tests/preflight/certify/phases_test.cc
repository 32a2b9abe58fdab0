// certify's phase list as data: the model step's dependency on the plane it
// trains over (SKIP naming the failure), and its deadline from the profile.
#include <catch2/catch.hpp>

#include "formats/profile.h"
#include "preflight/certify/phases.h"
#include "probes/model/model_options.h"

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

TEST_CASE("phases: the default model fits every world from 1 to 64 ranks") {
  preflight::certify::CertifyOptions o;
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile(
      "version: 1\nplanes: [{name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}]\n",
      "p.yaml"));
  const Phase model = find(preflight::certify::certify_phases(o), "model");
  Coordinator co;
  co.options = &o;
  co.plan.hosts.push_back({"h", "k", "", {}, std::nullopt});
  // The batch is chosen from the world (16 over 3 replicas x 2 micro-batches
  // would not divide: it becomes 18).
  for (int world = 1; world <= 64; ++world) {
    co.plan.hosts[0].ranks.clear();
    co.plan.host_of.assign(static_cast<std::size_t>(world), 0);
    for (int r = 0; r < world; ++r) co.plan.hosts[0].ranks.push_back(r);
    INFO(world << " ranks");
    CHECK(model.plan(co).skip_reason.empty());
    const auto m = probes::model::resolve_model(*o.profile, {}, world);
    CHECK(m.options.spec.size.batch % (world * m.options.spec.size.micro_batches) == 0);
    CHECK(m.options.spec.size.batch >= 16);
  }
  // A batch the profile sets is the user's: it is not changed.
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile(
      "version: 1\nplanes: [{name: param, type: parameter, subnet: 10.10.0.0/24, nic: eth1}]\n"
      "model: {size: {batch: 16}}\n",
      "p.yaml"));
  CHECK(probes::model::resolve_model(*o.profile, {}, 4).options.spec.size.batch == 16);
  CHECK_THROWS(probes::model::resolve_model(*o.profile, {}, 3));
}
