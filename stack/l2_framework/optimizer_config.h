#pragma once
// The optimizer's settings (optimizer.h applies them). Plain data, so the
// profile can carry them without linking the optimizer.

#include <string>

namespace hn::stack::framework {

enum class OptimizerKind { kSgd, kAdam };
std::string to_string(OptimizerKind k);  // "sgd", "adam"
// Throws std::invalid_argument naming the text and the choices.
OptimizerKind optimizer_from_string(const std::string& s);

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kAdam;
  double lr = 1e-2;
  double momentum = 0.9;                          // sgd
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam
};

}  // namespace hn::stack::framework
