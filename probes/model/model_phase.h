#pragma once
// The model phase of certify: train the bundled model (L1) with a parallel
// layout (L2) over the job's world communicator (L3), its compute checked
// against and run through the backend's operator matrix (L4), its
// checkpoint written to and read back from the shared mount (L7), and judge
// what happened, by layer:
//
//   L1  MODEL-LOSS (the loss decreases), MODEL-RESUME (resume from the
//       checkpoint equals the uninterrupted run bit for bit),
//       MODEL-CKPT-CHECKSUM (shards match the manifest)
//   L2  MODEL-EQUIVALENCE (the loss curve equals the single-rank run's
//       within the tolerance), MODEL-REPLICA (dp replicas bit-identical,
//       every replica_check_every steps; groups of two or more only: a
//       group of one has nothing to compare), MODEL-DEADLINE. The layout's
//       groups and the step time are evidence and figures, not checks:
//       nothing could fail them
//   L3  MODEL-RANK-DIED, MODEL-COLLECTIVE
//   L4  MODEL-OPS, or the OP-* finding of `hnprecheck ops` for an operator
//       the backend lacks (then nothing runs)
//   L7  MODEL-CKPT-WRITE / -READ (throughput), MODEL-CKPT-HUNG (naming the
//       call), MODEL-CKPT-IO-ERROR
//
// For a caller (certify's model phase; bench/model_step does the same):
//   1. Before any traffic, on every rank: resolve_model(profile, overrides,
//      world_size, node) (model_options.h) with the profile's `model:`
//      section and the command line's --layout/--steps/--checkpoint-dir/
//      --backend/--matrix. It throws compat::InputError naming the option or
//      field and the numbers: exit 2, nothing run. Keep the ResolvedModel
//      alive for the call (it owns a matrix read from a file).
//   2. A world stack::comm::Communicator over every rank of the job (its
//      store and links; shm or TCP, full mesh). Groups are split from it
//      (and, with model.planes, get their own links over its store). Its
//      CommOptions timeout bounds each collective.
//   3. A deadline, the same instant on every rank: now + spec.timeout_s,
//      or less if the caller's own budget is shorter.
//   4. run_model_phase(world, resolved.options, deadline) on every rank.
//      It returns this rank's findings (rank 0 holds the job's), rank 0's
//      measurements (reports/measurement.h, names model.*: e.g.
//      model.step_time{layer,op}, model.checkpoint.write_throughput,
//      model.equivalence_max_diff) and rank 0's step table
//      (reports/step_table.h) for the text and HTML reports. The caller
//      gathers the other ranks' findings (they are distinct) and adds them.
//
// Contract. run_model_phase() is collective: every rank of `world` calls it
// with the same options. Findings about the job (loss, equivalence, step
// time, layout, operators, checkpoint figures) come from rank 0 only;
// findings about one rank (its collective failed, its checkpoint I/O failed
// or hung, its replica group diverged: the group's first member) from that
// rank, so the union over ranks has each finding once.
//
// Deadlines. The phase stops starting steps at `deadline` (MODEL-DEADLINE
// FAIL). Each collective is bounded by the world's timeout; checkpoint I/O
// runs in a supervised worker killed after checkpoint_timeout_s, so a hung
// mount is a finding on time. The single-rank reference for the
// equivalence check runs on rank 0 after the parallel run (the others wait
// for its verdict within the deadline).
//
// A dead rank: its peers' collectives throw PeerDiedError naming it; each
// survivor returns MODEL-RANK-DIED and stops (the world communicator is then
// broken: the caller must not use it again). What is bad input throws
// compat::InputError before any traffic (validate_model_options(): a layout
// that does not fit the world, sizes that do not divide). Anything else
// thrown is a bug.

#include <chrono>
#include <string>
#include <vector>

#include "compat/op_matrix.h"
#include "formats/model_spec.h"
#include "reports/finding.h"
#include "reports/measurement.h"
#include "reports/step_table.h"
#include "stack/l2_framework/process_groups.h"
#include "stack/l3_comm/communicator.h"

namespace hn::probes::model {

// Faults the tests inject to prove the checks catch them (never set by the
// command line or the profile).
struct FaultInjection {
  int flip_rank = -1;           // this rank flips one parameter bit ...
  int flip_step = -1;           // ... after this step (0-based)
  bool skip_grad_sync = false;  // no data-parallel gradient reduction
  // Framework defects, on every rank alike (stack/l2_framework/grad_sync.h,
  // pipeline.h, stack/l1_model/trainer.h): the model phase must catch each.
  double grad_scale = 1.0;          // every reduced gradient times this
  bool negate_one_grad = false;     // one gradient element negated after its reduction
  int drop_bucket = -1;             // this bucket left unreduced over the replicas
  long long stale_step = -1;        // the optimizer's update of this step skipped
  bool swap_micro_batches = false;  // the last pipeline stage swaps micro-batches 0 and 1
  int kill_rank = -1;           // this rank SIGKILLs itself ...
  int kill_step = -1;           // ... kill_after_ms into this step
  int kill_after_ms = 0;
};

struct ModelPhaseOptions {
  formats::ModelSpec spec;          // profile section with CLI overrides applied
  stack::framework::Layout layout;  // resolved (spec.layout or dp = world)
  const compat::OpMatrix* matrix = nullptr;
  std::string checkpoint_dir;                // resolved; empty: no checkpoint (SKIP findings)
  bool reference = true;                     // run the single-rank reference (equivalence)
  stack::framework::GroupLinks group_links;  // group kinds on planes of their own (model.planes)
  FaultInjection inject;                     // tests only
};

struct ModelPhaseResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> measurements;  // rank 0 only
  reports::StepTable table;                        // rank 0: the slowest rank's; else empty
  std::vector<double> losses;                      // per step, the same on every rank
};

// The equivalence probe (MODEL-EQUIVALENCE): kProbeSteps steps of the
// layout, trained with plain SGD (no momentum, so the size of every gradient
// shows in the next loss: Adam normalises a gradient scale away) in f64, at
// kProbeLr, on the first batch every step (so a loss changes only by the
// update before it), against the single-rank run of the same steps. Its tolerance is
// measured each time: the single-rank run is repeated with the whole batch
// in one micro-batch (another summation order, the only legitimate
// difference), and the tolerance is kNoiseFactor times the largest relative
// difference of the two, at least kToleranceFloor.
inline constexpr int kProbeSteps = 4;
inline constexpr double kProbeLr = 0.05;
inline constexpr double kNoiseFactor = 1000;
inline constexpr double kToleranceFloor = 1e-13;

// The relative tolerance of the older, f32 loss-curve comparison the tests
// use for whole training runs (summation order is all that differs).
double equivalence_tolerance(stack::op::DType t);

// Resolves the layout against the world (spec.layout, else dp = world) and
// checks the model fits it. Throws compat::InputError naming the field
// ("model.layout", "model.size.layers", ...) and the numbers.
// `source` and `line` say where the layout came from (the profile, or
// "--layout" and 0).
stack::framework::Layout resolve_layout(const formats::ModelSpec& spec, int world_size,
                                        const std::string& source, int line = -1);

ModelPhaseResult run_model_phase(stack::comm::Communicator& world, const ModelPhaseOptions& options,
                                 std::chrono::steady_clock::time_point deadline);

}  // namespace hn::probes::model
