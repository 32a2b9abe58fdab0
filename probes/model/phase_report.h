#pragma once
// What the model phase reports, collected as it runs: this rank's findings,
// the job-wide findings and figures (kept on rank 0 only, dropped on the
// others, so the union over ranks has each once), and the judgements that
// are pure functions of what was measured: the layout, replica identity,
// equivalence with the single-rank run, the step-time table (gathered from
// every rank through the rendezvous store: the slowest rank's).

#include <string>
#include <vector>

#include "probes/model/model_phase.h"
#include "stack/l2_framework/process_groups.h"
#include "stack/l2_framework/step_time.h"

namespace hn::probes::model {

struct ReplicaSeen {
  std::string group;
  std::vector<int> members, diverged;  // world ranks
  long long step = -1;                 // 0-based step after which it was checked
};

class PhaseReport {
 public:
  PhaseReport(int rank, std::string layout) : rank_(rank), layout_(std::move(layout)) {}

  void add(reports::Finding f) { result_.findings.push_back(std::move(f)); }
  void job(reports::Finding f);
  // Labels get layout=...; phase "model".
  void measure(const std::string& name, std::map<std::string, std::string> labels, double value,
               const std::string& unit, reports::Better better);

  void layout_finding(stack::framework::ProcessGroups& g, int world);
  void replica_finding(const ReplicaSeen& seen);
  // The equivalence probe's verdict (model_phase.h): each step's loss of
  // the layout against the single-rank run's, within kNoiseFactor times the
  // difference between the single-rank run and `other_order` (the same
  // steps summed in another order). A departure is diagnosed from the loss
  // change of the step before: its ratio to the single-rank change is the
  // gradient scale (1: a difference in direction; 0: no update).
  void equivalence(const std::vector<double>& reference, const std::vector<double>& other_order,
                   const std::vector<double>& parallel);
  // Collective over world (a store exchange): the slowest rank's mean step
  // time by row, on rank 0; model.step_time figures (and a summary as the
  // loss check's evidence).
  // The first step (warm-up: first-touch allocation) is left out when there
  // are more.
  void step_table(stack::comm::Communicator& world, const std::string& run_id,
                  const std::vector<stack::framework::StepTime>& steps, int planned);

  ModelPhaseResult finish(const std::vector<double>& losses);

 private:
  int rank_;
  std::string layout_;
  std::string groups_, step_summary_;  // evidence for the job's findings (finish())
  ModelPhaseResult result_;
};

// printf-formatted number, and "[0,1,3]": the text the findings' parameters use.
std::string number(double v, const char* format);
std::string rank_list(const std::vector<int>& ranks);

// The mean of the steps (all but the first when there are two or more).
stack::framework::StepTime mean_step(const std::vector<stack::framework::StepTime>& steps);
// "layer\twhat\tms\tbytes\tcalls" lines and back: the store exchange format.
std::string encode_rows(const stack::framework::StepTime& t);
stack::framework::StepTime decode_rows(const std::string& text);
// The rank whose mean step is the longest: its rows are the step-time table
// (one rank's rows add up to its step; maxima per row would not).
int slowest(const std::vector<stack::framework::StepTime>& per_rank);

}  // namespace hn::probes::model
