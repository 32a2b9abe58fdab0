// The bench's closed forms against brute force, the properties the
// verification relies on (exact, never zero, no aliasing, every call and rank
// different), and the descriptors against the nccl-tests definitions.
#include "drivers/comm_bench.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "drivers/comm_bench_values.h"

using namespace hn::drivers;
using bench_values::Values;
using hn::stack::op::DType;
using hn::stack::op::ReduceOp;

namespace {

const int kRanks[] = {1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 33, 64, 65, 100, 257, 300, 1000};

// Element indices around the window edges (4096-element rank windows, 2^k).
std::vector<std::size_t> indices() {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < 64; ++i) out.push_back(i);
  for (std::size_t base : {4096ul, 8192ul, 1ul << 16, 1ul << 20, (1ul << 26) + 5})
    for (std::size_t d = 0; d < 8; ++d) out.push_back(base - 4 + d);
  return out;
}

bool exact_in(DType t, double v) {
  std::vector<unsigned char> buf(8);
  bench_values::put(t, buf.data(), 0, v);
  return bench_values::get(t, buf.data(), 0) == v;
}

double fold(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::kProd:
      return a * b;
    case ReduceOp::kMin:
      return std::min(a, b);
    case ReduceOp::kMax:
      return std::max(a, b);
    default:
      return a + b;
  }
}

}  // namespace

TEST_CASE("closed-form reductions equal folding the inputs, exactly, in every dtype") {
  for (DType t : hn::stack::op::kAllDTypes)
    for (ReduceOp op : hn::stack::op::kAllReduceOps)
      for (int n : kRanks)
        for (std::uint64_t stamp : {1ull, 2ull, (7ull << 32) | 1}) {
          Values v(t, op, n, stamp);
          for (std::size_t i : indices()) {
            double acc = v.input(0, i);
            bool exact = exact_in(t, acc);
            for (int r = 1; r < n; ++r) {
              double x = v.input(r, i);
              exact = exact && exact_in(t, x);
              acc = fold(op, acc, x);
              exact = exact && exact_in(t, acc);  // every partial result, in rank order
            }
            INFO(hn::stack::op::to_string(t) << " " << hn::stack::op::to_string(op) << " n=" << n
                                             << " stamp=" << stamp << " i=" << i);
            REQUIRE(exact);
            double want = acc;
            if (op == ReduceOp::kAvg)
              want = (t == DType::kI32 || t == DType::kI64)
                         ? static_cast<double>(static_cast<long long>(acc) / n)
                         : acc / n;
            REQUIRE(v.reduced(i) == want);
            if (op == ReduceOp::kSum) REQUIRE(want >= 1);  // a zeroed output never passes
          }
        }
}

TEST_CASE("the batch forms equal the per-element forms, across rank windows") {
  // Ranges that start and end inside a 4096-element window, span several,
  // and sit at a large offset (reduce-scatter's block of a late rank).
  const std::pair<std::size_t, std::size_t> ranges[] = {
      {0, 1}, {0, 4096}, {4090, 20}, {4095, 8194}, {(1ul << 26) + 5, 9000}};
  for (DType t : hn::stack::op::kAllDTypes)
    for (ReduceOp op : hn::stack::op::kAllReduceOps)
      for (int n : {1, 2, 3, 4, 7, 64, 257, 1000})
        for (auto [lo, len] : ranges) {
          Values v(t, op, n, (5ull << 32) | 3);
          std::vector<double> got(len);
          INFO(hn::stack::op::to_string(t) << " " << hn::stack::op::to_string(op) << " n=" << n
                                           << " lo=" << lo << " len=" << len);
          v.reduceds(lo, len, got.data());
          for (std::size_t j = 0; j < len; ++j)
            if (got[j] != v.reduced(lo + j)) FAIL("reduced " << lo + j);
          for (int r : {0, n - 1, n / 2}) {
            v.inputs(r, lo, len, got.data());
            for (std::size_t j = 0; j < len; ++j)
              if (got[j] != v.input(r, lo + j)) FAIL("input of rank " << r << " at " << lo + j);
          }
        }
  // The descriptors' batch forms (where they have them) against theirs.
  for (const BenchColl& coll : bench_colls()) {
    Values v(DType::kF32, ReduceOp::kSum, 3, 9);
    const BenchCall call{v, 2, 3, 0, 5000};
    std::vector<double> got(5000);
    INFO(coll.name);
    coll.input_range(call, 0, 5000, got.data());
    for (std::size_t j = 0; j < 5000; ++j) REQUIRE(got[j] == coll.input(call, j));
    coll.expected_range(call, 0, 5000, got.data());
    for (std::size_t j = 0; j < 5000; ++j) REQUIRE(got[j] == coll.expected(call, j));
  }
}

TEST_CASE("consecutive calls change every element") {
  for (DType t : hn::stack::op::kAllDTypes)
    for (int n : {1, 2, 3, 8, 16, 64}) {
      Values a(t, ReduceOp::kSum, n, 10), b(t, ReduceOp::kSum, n, 11), c(t, ReduceOp::kSum, n, 12);
      Values ma(t, ReduceOp::kMax, n, 10), mb(t, ReduceOp::kMax, n, 11);
      for (std::size_t i = 0; i < 5000; ++i) {
        INFO(hn::stack::op::to_string(t) << " n=" << n << " i=" << i);
        REQUIRE(a.reduced(i) != b.reduced(i));
        REQUIRE(b.reduced(i) != c.reduced(i));
        if (n <= 16) REQUIRE(a.reduced(i) != c.reduced(i));  // bf16 beyond: A has 2 values
        REQUIRE(ma.reduced(i) != mb.reduced(i));
        REQUIRE(a.tag(3, i) != b.tag(3, i));
      }
    }
}

TEST_CASE("no aliasing: a chunk that lands d elements away differs, for every d") {
  // The old inputs repeated every 3 elements, so a shift by a multiple of 3
  // was invisible. Here a 16-element chunk moved by any d differs in most
  // elements (bf16, the narrowest type, draws each from 16 values).
  for (DType t : {DType::kBF16, DType::kF16, DType::kF32}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax}) {
      Values v(t, op, 8, 5);
      for (std::size_t d = 1; d <= 70000; d += (d < 300 ? 1 : 97)) {
        for (std::size_t start : {0ul, 4090ul, 12288ul}) {
          int same = 0;
          for (std::size_t i = start; i < start + 16; ++i) same += v.reduced(i) == v.reduced(i + d);
          INFO(hn::stack::op::to_string(t) << " d=" << d << " start=" << start);
          REQUIRE(same <= 10);
        }
      }
      Values c(t, ReduceOp::kSum, 8, 5);
      for (std::size_t d = 1; d <= 300; ++d) {  // copies: a tag block shifted
        int same = 0;
        for (std::size_t i = 0; i < 16; ++i) same += c.tag(1, i) == c.tag(1, i + d);
        REQUIRE(same <= 6);
      }
    }
  }
}

TEST_CASE("every rank's data differs from every other rank's somewhere in each 64 Ki elements") {
  // A chunk of rank a's data in place of rank b's must change a sum, even
  // with fewer distinct rank terms than ranks (bf16 with 16+ ranks).
  for (DType t : {DType::kBF16, DType::kF16, DType::kF32}) {
    for (int n : {2, 5, 8, 16, 33, 64}) {  // bf16 beyond 64 ranks: every rank adds 1
      Values v(t, ReduceOp::kSum, n, 3);
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) {
          bool differs = false;
          for (std::size_t i = 0; i < (1u << 16) && !differs; i += 4096)
            differs = v.input(a, i) != v.input(b, i);
          INFO(hn::stack::op::to_string(t) << " n=" << n << " ranks " << a << ", " << b);
          REQUIRE(differs);
        }
    }
  }
}

TEST_CASE("a source's tags differ from another source's") {
  Values v(DType::kBF16, ReduceOp::kSum, 4, 9);
  for (std::uint64_t a = 0; a < 16; ++a)
    for (std::uint64_t b = a + 1; b < 16; ++b) {
      int same = 0;
      for (std::size_t i = 0; i < 16; ++i) same += v.tag(a, i) == v.tag(b, i);
      REQUIRE(same <= 6);
    }
}

TEST_CASE("a wrong value is not the same") {
  CHECK_FALSE(Values(DType::kF16, ReduceOp::kAvg, 2, 1).same(1.01, 1.0));
  CHECK(Values(DType::kF16, ReduceOp::kAvg, 2, 1).same(1.0 + 1.0 / 2048, 1.0));
  CHECK_FALSE(Values(DType::kI32, ReduceOp::kSum, 2, 1).same(2, 3));
  CHECK(Values(DType::kI32, ReduceOp::kSum, 2, 1).exact());
  CHECK_FALSE(Values(DType::kBF16, ReduceOp::kAvg, 2, 1).exact());
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

TEST_CASE("one descriptor per collective, with nccl-tests' sizes") {
  REQUIRE(bench_colls().size() == 7);
  for (const auto& c : bench_colls()) {
    CHECK(&bench_coll(c.op) == &c);
    CHECK(bench_op_from_string(c.name) == c.op);
    CHECK(to_string(c.op) == c.name);
  }
  // 4 ranks, f32, 1 MiB: allgather sees the gathered buffer, so each rank
  // contributes 64 Ki elements; allreduce 256 Ki.
  CHECK(bench_coll(BenchOp::kAllgather).count_for(1 << 20, 4, 4) == 65536);
  CHECK(bench_coll(BenchOp::kAllgather).out_elems(65536, 4) == 262144);
  CHECK(bench_coll(BenchOp::kAllreduce).count_for(1 << 20, 4, 4) == 262144);
  CHECK(bench_coll(BenchOp::kReduceScatter).in_elems(65536, 4) == 262144);
  CHECK(bench_coll(BenchOp::kAlltoall).bytes_for(65536, 4, 4) == (1u << 20));
  CHECK(bench_coll(BenchOp::kAllreduce).reduces);
  CHECK_FALSE(bench_coll(BenchOp::kAlltoall).reduces);
}
