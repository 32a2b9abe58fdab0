#pragma once
// The profile's optional `model:` section: how the model phase trains the
// bundled model (layout, steps, size, optimizer, operator matrix, where
// checkpoints go, how often replicas are compared, deadlines). Plain data;
// formats/profile_model.cc reads it, probes/model/ runs it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "stack/l1_model/model_config.h"
#include "stack/l2_framework/layout.h"
#include "stack/l2_framework/optimizer_config.h"

namespace hn::formats {

struct ModelSpec {
  // Absent: every rank is a data-parallel replica (dp = the job's world).
  std::optional<stack::framework::Layout> layout;
  int steps = 20;
  std::uint64_t seed = 1;
  stack::model::ModelConfig size;
  // Whether model.size sets batch or micro_batches. When it does not, the
  // model phase chooses the batch from the layout's dp (at least 16
  // sequences, a whole number per replica and micro-batch), so the default
  // model fits every world size.
  bool batch_set = false;
  stack::framework::OptimizerConfig optimizer;
  // The emulated backend: a built-in operator matrix, or a matrix file
  // (relative paths are relative to the profile's directory).
  std::string backend = "reference-cpu";
  std::string matrix_file;
  // Where each rank writes its checkpoint shard. Empty: the first storage
  // mount's probe_dir; with no storage mounts either, no checkpoint.
  std::string checkpoint_dir;
  double checkpoint_timeout_s = 30;  // a write or read past this is a hung mount
  int replica_check_every = 5;       // steps between DP replica checksum comparisons
  // Group kind ("tp", "pp", "dp", "ep", "expert_dp") -> the profile plane its
  // traffic must use; the others borrow the world's links.
  std::map<std::string, std::string> group_planes;
  double timeout_s = 300;                        // the whole phase
  int line = 0, layout_line = 0, size_line = 0;  // where the section and its keys are
};

}  // namespace hn::formats
