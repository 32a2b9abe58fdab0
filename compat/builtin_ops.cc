#include "compat/builtin_ops.h"

#include <map>
#include <mutex>

#include "compat/input_error.h"

namespace hn::compat {

namespace embedded {
extern const char* const kReferenceCpuMatrix;
extern const char* const kExampleNpuMatrix;
extern const char* const kExampleGpuMatrix;
extern const char* const kOpMapping;
}  // namespace embedded

namespace {
struct Shipped {
  const char* name;
  const char* const* text;
};
constexpr Shipped kShipped[] = {
    {"reference-cpu", &embedded::kReferenceCpuMatrix},
    {"example-npu", &embedded::kExampleNpuMatrix},
    {"example-gpu", &embedded::kExampleGpuMatrix},
};
}  // namespace

std::vector<std::string> builtin_matrix_names() {
  std::vector<std::string> names;
  for (const auto& s : kShipped) names.emplace_back(s.name);
  return names;
}

const OpMatrix& builtin_matrix(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, OpMatrix> parsed;
  std::lock_guard lock(mu);
  if (auto it = parsed.find(name); it != parsed.end()) return it->second;
  for (const auto& s : kShipped)
    if (name == s.name)
      return parsed.emplace(name, parse_op_matrix(*s.text, "embedded:" + name)).first->second;
  std::string list;
  for (const auto& s : kShipped) list += (list.empty() ? "" : ", ") + std::string(s.name);
  throw InputError("command line", 0, 0, "--backend",
                   "unknown backend '" + name + "' (built in: " + list +
                       "; or give a matrix file with --matrix)");
}

const OpMapping& builtin_mapping() {
  static const OpMapping m = parse_op_mapping(embedded::kOpMapping, "embedded:mapping");
  return m;
}

}  // namespace hn::compat
