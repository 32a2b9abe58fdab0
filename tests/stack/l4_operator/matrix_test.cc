// The shipped reference-cpu matrix says exactly what L4 implements: every
// registry kernel is in it with the same dtypes and limits, and every op it
// lists with dtypes has a kernel.
#include <catch2/catch.hpp>

#include "compat/builtin_ops.h"
#include "stack/l4_operator/registry.h"

using namespace hn::stack::op;

namespace {
std::vector<std::string> names(const std::vector<DType>& v) {
  std::vector<std::string> out;
  for (DType t : v) out.emplace_back(to_string(t));
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("reference-cpu matrix: every kernel is listed with its dtypes and limits") {
  const auto& m = hn::compat::builtin_matrix("reference-cpu");
  for (const Kernel& k : builtin_registry().kernels()) {
    INFO("kernel " << k.name);
    const auto* e = m.find(k.name);
    REQUIRE(e != nullptr);
    auto listed = e->dtypes;
    std::sort(listed.begin(), listed.end());
    CHECK(listed == names(k.dtypes));
    CHECK(e->constraints.min_rank == k.limits.min_rank);
    CHECK(e->constraints.max_rank == k.limits.max_rank);
    CHECK(e->constraints.min_opset == k.limits.min_opset);
    CHECK(e->constraints.max_opset == k.limits.max_opset);
    CHECK(e->constraints.attributes == k.limits.attributes);
  }
}

TEST_CASE("reference-cpu matrix: every op it supports has a kernel") {
  const auto& m = hn::compat::builtin_matrix("reference-cpu");
  CHECK_FALSE(m.example);
  std::size_t supported = 0;
  for (const auto& e : m.entries) {
    INFO("matrix op " << e.name);
    if (e.dtypes.empty()) {
      CHECK(builtin_registry().find(e.name) == nullptr);  // listed only for its hint
      CHECK_FALSE(e.replacement.empty());
      continue;
    }
    ++supported;
    CHECK(builtin_registry().find(e.name) != nullptr);
  }
  CHECK(supported == builtin_registry().kernels().size());
}

TEST_CASE("registry: the ops the bundled model and the collectives need are all there") {
  for (const char* op :
       {"matmul", "add", "mul", "gelu", "relu", "softmax", "layernorm", "embedding",
        "cross_entropy", "transpose", "reshape", "sum", "prod", "min", "max", "avg"})
    CHECK(builtin_registry().find(op) != nullptr);
}
