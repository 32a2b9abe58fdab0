// NCCL_IB_HCA forms (docs/comm-sources.md A2), table-driven.
#include "compat/ib_hca_grammar.h"

#include <catch2/catch.hpp>

using namespace hn::compat;

namespace {
std::vector<HcaPortCandidate> ports() {
  return {{"mlx5_0", 1, true, "Ethernet"},   {"mlx5_0", 2, false, "Ethernet"},
          {"mlx5_1", 1, true, "Ethernet"},   {"mlx5_10", 1, true, "Ethernet"},
          {"mlx5_2", 1, true, "InfiniBand"}, {"mlx5_3", 1, true, "Unknown"}};
}
std::vector<std::string> strs(const HcaSelection& s) {
  std::vector<std::string> v;
  for (const auto& p : s.ports) v.push_back(p.str());
  return v;
}
}  // namespace

TEST_CASE("NCCL_IB_HCA: prefixes, ^, =, ^=, ports, rail/plane suffixes") {
  struct Case {
    std::optional<std::string> value;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {std::nullopt, {"mlx5_0:1", "mlx5_1:1", "mlx5_10:1", "mlx5_2:1"}},  // every ACTIVE port
      {"", {"mlx5_0:1", "mlx5_1:1", "mlx5_10:1", "mlx5_2:1"}},
      {"mlx5_1", {"mlx5_1:1", "mlx5_10:1"}},  // prefix: mlx5_1 also matches mlx5_10
      {"=mlx5_1", {"mlx5_1:1"}},              // exact
      {"^mlx5_1", {"mlx5_0:1", "mlx5_2:1"}},
      {"^=mlx5_1", {"mlx5_0:1", "mlx5_10:1", "mlx5_2:1"}},
      {"mlx5_0:1,mlx5_2", {"mlx5_0:1", "mlx5_2:1"}},
      {"mlx5_0:2", {}},                // port 2 is not ACTIVE
      {"mlx5_0:1:0:1", {"mlx5_0:1"}},  // rail and plane are ignored
      {"^mlx5_0:1", {"mlx5_1:1", "mlx5_10:1", "mlx5_2:1"}},
      {"=mlx5_0:1,mlx5_1:1", {"mlx5_0:1", "mlx5_1:1"}},
      {"mlx5_3", {}},  // link layer neither IB nor Ethernet
  };
  for (const auto& c : cases) {
    CAPTURE(c.value.value_or("(unset)"));
    HcaSelection s = resolve_nccl_ib_hca(c.value, ports());
    CHECK(strs(s) == c.expected);
    CHECK(s.error.empty() == !c.expected.empty());
    CHECK(s.automatic == (!c.value || c.value->empty()));
  }
}
