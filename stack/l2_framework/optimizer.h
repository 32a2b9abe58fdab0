#pragma once
// The optimizer step over this rank's parameter shards: SGD with momentum,
// or Adam (bias-corrected). Elementwise, so a shard is updated exactly as the
// same elements of the whole tensor would be; computed in the parameter's
// dtype, in a fixed order, so replicas with identical gradients stay
// identical. Its state (step count, exp_avg, exp_avg_sq) is part of a
// checkpoint. Timed as "L2 optimizer".

#include <vector>

#include "stack/l2_framework/optimizer_config.h"
#include "stack/l2_framework/parameter.h"
#include "stack/l2_framework/step_time.h"

namespace hn::stack::framework {

class Optimizer {
 public:
  Optimizer(OptimizerConfig config, std::vector<Parameter*> params);
  void step(StepTimer* timer);
  long long steps() const { return steps_; }
  void set_steps(long long n) { steps_ = n; }  // restoring a checkpoint
  const OptimizerConfig& config() const { return config_; }

 private:
  OptimizerConfig config_;
  std::vector<Parameter*> params_;
  long long steps_ = 0;
};

}  // namespace hn::stack::framework
