#pragma once
// Training the bundled model on one rank of a job: the layout's process
// groups, the model's stage, bucketed gradient reduction, the optimizer and
// the data, one step at a time.
//
// The constructor is collective over `world` (every rank, same options). It
// throws framework::LayoutError or ConfigError for a layout or size that
// does not fit (bad input), and op::UnsupportedOpError when the backend's
// matrix lacks an operator the model needs: every graph is checked against
// the matrix before the first step, so then nothing has run. step() is
// collective too; it throws what L3 throws (PeerDiedError naming the dead
// rank of the world, TimeoutError) within the world's timeout per
// collective. After a throw the trainer (and the world) must be discarded.

#include <cstdint>
#include <string>
#include <vector>

#include "compat/op_matrix.h"
#include "stack/l1_model/data.h"
#include "stack/l1_model/model_config.h"
#include "stack/l1_model/transformer.h"
#include "stack/l2_framework/grad_sync.h"
#include "stack/l2_framework/pipeline.h"
#include "stack/l2_framework/graph_runner.h"
#include "stack/l2_framework/optimizer.h"
#include "stack/l2_framework/process_groups.h"
#include "stack/l2_framework/replica_check.h"
#include "stack/l2_framework/step_time.h"

namespace hn::stack::model {

struct TrainerOptions {
  ModelConfig model;
  framework::Layout layout;
  framework::OptimizerConfig optimizer;
  std::uint64_t seed = 1;
  const compat::OpMatrix* matrix = nullptr;  // required
  framework::GradSyncOptions grad_sync;
  framework::GroupLinks group_links;  // group kinds on planes of their own
  // Fault injection for tests: the pipeline's (pipeline.h), and the step at
  // which every rank skips the optimizer's update (stale parameters after a
  // step); -1: none.
  framework::PipelineFaults pipeline_faults;
  long long fault_skip_update_at = -1;
  // Train on the first step's batch every step: the loss then changes only
  // by the updates, so the ratio of two runs' changes is the ratio of their
  // updates (the model phase's equivalence probe).
  bool same_batch_every_step = false;
};

struct StepResult {
  long long step = 0;  // 0-based index of the step just run
  double loss = 0;     // mean over the whole global batch, the same on every rank
  framework::StepTime time;
};

// Everything a checkpoint holds for one rank: named tensors (each
// parameter's value and optimizer state) and the counters.
struct NamedTensor {
  std::string name;
  op::Tensor value;
};
struct TrainingState {
  long long step = 0;
  long long optimizer_steps = 0;
  std::vector<NamedTensor> tensors;
};

class Trainer {
 public:
  Trainer(comm::Communicator& world, TrainerOptions options);

  StepResult step();
  long long steps_done() const { return step_; }
  std::vector<framework::ReplicaGroupResult> check_replicas();

  TrainingState state() const;
  // Throws std::invalid_argument naming the tensor that is missing or has
  // another dtype or shape (a checkpoint of another model or layout).
  void restore(const TrainingState& s);

  // Fault injection (tests, certify's self-test): flips the lowest bit of
  // this rank's first dense parameter, as silent corruption would.
  void flip_one_bit();

  framework::ProcessGroups& groups() { return groups_; }
  const TrainerOptions& options() const { return options_; }
  std::size_t parameter_bytes() const;
  std::size_t bucket_count() const { return sync_.bucket_count(); }
  // The L4 graphs of a step, checked against the matrix: how many, how many nodes.
  std::size_t graph_count() const { return runner_.declared_graphs(); }
  std::size_t node_count() const { return runner_.declared_nodes(); }

 private:
  TrainerOptions options_;
  framework::StepTimer timer_;
  framework::ProcessGroups groups_;
  framework::GraphRunner runner_;
  Transformer model_;
  framework::GradSync sync_;
  framework::Optimizer optimizer_;
  SyntheticData data_;
  long long step_ = 0;
};

}  // namespace hn::stack::model
