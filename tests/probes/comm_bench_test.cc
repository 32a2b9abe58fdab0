// The bench's closed forms against brute force, and its sweep and bus
// factors against the nccl-tests definitions.
#include "probes/comm_bench.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "probes/comm_bench_values.h"

using namespace hn::probes;
using hn::stack::op::DType;
using hn::stack::op::ReduceOp;

TEST_CASE("closed-form reductions equal folding the inputs over the ranks") {
  for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 64, 65, 100}) {
    for (std::size_t i = 0; i < 200; ++i) {
      double sum = 0, prod = 1, mn = 1e300, mx = -1e300;
      for (int r = 0; r < n; ++r) {
        sum += bench_values::input(ReduceOp::kSum, r, n, i);
        prod *= bench_values::input(ReduceOp::kProd, r, n, i);
        mn = std::min(mn, bench_values::input(ReduceOp::kMin, r, n, i));
        mx = std::max(mx, bench_values::input(ReduceOp::kMax, r, n, i));
      }
      INFO("n=" << n << " i=" << i);
      CHECK(bench_values::reduced(ReduceOp::kSum, DType::kF32, n, i) == sum);
      CHECK(bench_values::reduced(ReduceOp::kProd, DType::kF32, n, i) == prod);
      CHECK(bench_values::reduced(ReduceOp::kMin, DType::kF32, n, i) == mn);
      CHECK(bench_values::reduced(ReduceOp::kMax, DType::kF32, n, i) == mx);
      CHECK(bench_values::reduced(ReduceOp::kAvg, DType::kF64, n, i) == sum / n);
      CHECK(bench_values::reduced(ReduceOp::kAvg, DType::kI32, n, i) ==
            static_cast<double>(static_cast<long long>(sum) / n));
    }
  }
}

TEST_CASE("every input and result is exact in every dtype") {
  std::vector<unsigned char> buf(16);
  for (DType t : hn::stack::op::kAllDTypes)
    for (ReduceOp op : hn::stack::op::kAllReduceOps)
      for (std::size_t i = 0; i < 50; ++i) {
        double v = bench_values::input(op, 3, 8, i);
        bench_values::put(t, buf.data(), 0, v);
        CHECK(bench_values::get(t, buf.data(), 0) == v);
        if (op == ReduceOp::kAvg) continue;
        double w = bench_values::reduced(op, t, 8, i);
        bench_values::put(t, buf.data(), 0, w);
        CHECK(bench_values::get(t, buf.data(), 0) == w);
      }
}

TEST_CASE("a wrong value is not the same") {
  CHECK_FALSE(bench_values::same(DType::kF16, ReduceOp::kAvg, 1.01, 1.0));
  CHECK(bench_values::same(DType::kF16, ReduceOp::kAvg, 1.0 + 1.0 / 2048, 1.0));
  CHECK_FALSE(bench_values::same(DType::kI32, ReduceOp::kSum, 2, 3));
}

TEST_CASE("sweep sizes and bus factors follow nccl-tests") {
  CHECK(sweep_sizes(8, 64, 2) == std::vector<std::size_t>{8, 16, 32, 64});
  CHECK(sweep_sizes(64 << 10, 256 << 20, 4).size() == 7);
  CHECK(sweep_sizes(100, 100, 1) == std::vector<std::size_t>{100});
  CHECK(bus_factor(BenchOp::kAllreduce, 4) == 1.5);
  CHECK(bus_factor(BenchOp::kAllgather, 4) == 0.75);
  CHECK(bus_factor(BenchOp::kReduceScatter, 8) == 0.875);
  CHECK(bus_factor(BenchOp::kAlltoall, 2) == 0.5);
  CHECK(bus_factor(BenchOp::kBroadcast, 8) == 1);
  CHECK(bus_factor(BenchOp::kSendRecv, 8) == 1);
  CHECK_THROWS_WITH(bench_op_from_string("allgatherv"), Catch::Contains("reducescatter"));
}
