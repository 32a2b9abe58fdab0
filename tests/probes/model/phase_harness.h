#pragma once
// Runs the model phase on N real ranks (forked by the L5 launcher, each with
// its own Communicator from the launcher's environment, like
// tests/stack/l3_comm's rank harness) and collects what every rank
// returned: its findings, its losses and its step table, written by the rank
// as JSON and read back here.

#include <string>
#include <vector>

#include "probes/model/model_phase.h"
#include "stack/l3_comm/communicator.h"
#include "stack/l5_sched/local_launcher.h"

namespace hn::test {

struct RankOutcome {
  bool returned = false;  // the rank wrote its result (it was not killed)
  std::vector<reports::Finding> findings;
  std::vector<double> losses;
  reports::StepTable table;
};

struct PhaseRun {
  stack::sched::LaunchResult launch;
  std::vector<RankOutcome> ranks;
  double seconds = 0;
  // Every finding of every rank with this code.
  std::vector<reports::Finding> with_code(const std::string& code) const;
  std::string summary() const;  // code/status/message per finding, for INFO
};

struct PhaseSetup {
  stack::comm::TransportKind transport = stack::comm::TransportKind::kShm;
  std::chrono::milliseconds comm_timeout{20000};
  double deadline_s = 120;
};

PhaseRun run_phase(int ranks, const probes::model::ModelPhaseOptions& options,
                   const PhaseSetup& setup = {});

// build/bin/model_step, next to the hnprecheck binary.
std::string model_step_binary();

// The losses of the same model trained by this process alone (a world of
// one: no threads, so launching ranks afterwards is still safe).
std::vector<double> single_rank_losses(const formats::ModelSpec& spec, const compat::OpMatrix& m);

}  // namespace hn::test
