#include "stack/l2_framework/optimizer_config.h"

#include <stdexcept>

namespace hn::stack::framework {

std::string to_string(OptimizerKind k) {
  return k == OptimizerKind::kSgd ? "sgd" : "adam";
}

OptimizerKind optimizer_from_string(const std::string& s) {
  if (s == "sgd") return OptimizerKind::kSgd;
  if (s == "adam") return OptimizerKind::kAdam;
  throw std::invalid_argument("unknown optimizer '" + s + "' (expected sgd or adam)");
}

}  // namespace hn::stack::framework
