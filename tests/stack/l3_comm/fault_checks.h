#pragma once
// What the faults that act on the whole output do on every allreduce path
// of 2 ranks whose inputs are v(r, i) = r + 1 + 10 (i % 100): a clean run is
// right, kZeroedOutput zeroes it, kStaleBuffer leaves it as it was, and
// kWrongReduceOp gives the max. go(fault) refills the inputs, sets `out` to
// `stale` and runs one allreduce with the fault armed. The faults that break
// one block (dropped, off by one) differ by path and are checked by each
// path's test. Throws std::runtime_error naming the first wrong element.

#include <cstddef>
#include <stdexcept>
#include <string>

#include "stack/l3_comm/fault_injection.h"

namespace hn::test {

inline float two_rank_sum(std::size_t i) {
  return static_cast<float>(3 + 20 * (i % 100));
}

template <typename Go>
void check_whole_output_faults(Go&& go, const float* out, std::size_t count, float stale) {
  using stack::comm::testing::Fault;
  auto expect_all = [&](const char* what, auto want) {
    for (std::size_t i = 0; i < count; ++i)
      if (out[i] != want(i))
        throw std::runtime_error(std::string(what) + ": element " + std::to_string(i) + " is " +
                                 std::to_string(out[i]));
  };
  go(Fault::kNone);
  expect_all("clean run", two_rank_sum);
  go(Fault::kZeroedOutput);
  expect_all("zeroed output", [](std::size_t) { return 0.0f; });
  go(Fault::kStaleBuffer);
  expect_all("stale buffer", [&](std::size_t) { return stale; });
  go(Fault::kWrongReduceOp);
  expect_all("wrong op (max)", [](std::size_t i) { return static_cast<float>(2 + 10 * (i % 100)); });
}

}  // namespace hn::test
