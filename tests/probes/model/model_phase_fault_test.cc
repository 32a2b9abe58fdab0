// A rank SIGKILLed in the middle of a training step: every survivor stops
// within the collective timeout (far inside the phase's deadline) and names
// the dead rank in MODEL-RANK-DIED; the dead rank returns nothing.
#include <catch2/catch.hpp>

#include "compat/builtin_ops.h"
#include "probes/model/model_phase.h"
#include "tests/probes/model/phase_harness.h"

using namespace hn;

TEST_CASE("model phase: a rank killed mid-step is named by every survivor, on time") {
  for (auto transport : {stack::comm::TransportKind::kShm, stack::comm::TransportKind::kTcp}) {
    INFO(to_string(transport));
    probes::model::ModelPhaseOptions o;
    o.spec.steps = 50;
    o.layout = stack::framework::parse_layout("tp=2,dp=2");
    o.matrix = &compat::builtin_matrix("reference-cpu");
    o.reference = false;
    o.inject.kill_rank = 3;
    o.inject.kill_step = 2;
    o.inject.kill_after_ms = 3;  // inside the step: its forward or backward
    test::PhaseSetup setup;
    setup.transport = transport;
    setup.comm_timeout = std::chrono::milliseconds(10000);
    setup.deadline_s = 60;
    auto run = test::run_phase(4, o, setup);
    INFO(run.summary());
    CHECK(run.launch.first_failed_rank == 3);
    CHECK_THAT(run.launch.first_failure, Catch::Contains("signal 9"));
    CHECK_FALSE(run.ranks[3].returned);
    // Well inside both the 10 s collective timeout and the 60 s deadline:
    // the death is reported by the rendezvous, not waited out.
    CHECK(run.seconds < 10);
    for (int r : {0, 1, 2}) {
      INFO("rank " << r);
      REQUIRE(run.ranks[static_cast<std::size_t>(r)].returned);
      const auto& fs = run.ranks[static_cast<std::size_t>(r)].findings;
      auto died = std::find_if(fs.begin(), fs.end(), [](const reports::Finding& f) {
        return f.code == "MODEL-RANK-DIED";
      });
      REQUIRE(died != fs.end());
      CHECK(died->status == reports::Status::kFail);
      CHECK(died->layer == reports::Layer::kL3);
      CHECK(died->evidence.at("dead_rank") == "3");
      CHECK_THAT(died->message, Catch::StartsWith("rank 3 died during the model step; rank " +
                                                  std::to_string(r) + " stopped in "));
    }
  }
}
