#include "stack/l4_operator/reduce.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "stack/l4_operator/element.h"
#include "stack/l4_operator/half.h"

using namespace hn::stack::op;

namespace {

// Values chosen so every op is exact in every dtype: small integers.
double value(int rank, std::size_t i) {
  return static_cast<double>((rank + 1) * ((i % 5) + 1));
}

void store(DType t, void* buf, std::size_t i, double v) {
  store_element(t, buf, i, v);
}
double load(DType t, const void* buf, std::size_t i) {
  return load_element(t, buf, i);
}

double expected(ReduceOp op, int ranks, std::size_t i, bool integer) {
  double k = static_cast<double>((i % 5) + 1);
  double n = ranks;
  switch (op) {
    case ReduceOp::kSum:
      return k * n * (n + 1) / 2;
    case ReduceOp::kAvg: {
      double avg = k * (n + 1) / 2;
      return integer ? std::trunc(avg) : avg;
    }
    case ReduceOp::kProd:
      return std::pow(k, n) * std::tgamma(n + 1);
    case ReduceOp::kMin:
      return k;
    case ReduceOp::kMax:
      return k * n;
  }
  return 0;
}

}  // namespace

TEST_CASE("reductions over ranks x sizes x dtypes x ops match closed forms") {
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      for (int ranks : {1, 2, 3, 5})
        for (std::size_t count : {0ul, 1ul, 7ul, 33ul, 1023ul, 4099ul}) {
          // f16 prod of 5 ranks reaches 120*5^5 > 65504: stay in range.
          if ((t == DType::kF16 || t == DType::kBF16) && op == ReduceOp::kProd && ranks > 3)
            continue;
          std::vector<unsigned char> acc(count * dtype_size(t) + 1), in(count * dtype_size(t) + 1);
          for (std::size_t i = 0; i < count; ++i) store(t, acc.data(), i, value(0, i));
          for (int r = 1; r < ranks; ++r) {
            for (std::size_t i = 0; i < count; ++i) store(t, in.data(), i, value(r, i));
            reduce_into(t, op, acc.data(), in.data(), count);
          }
          if (op == ReduceOp::kAvg) finalize_avg(t, acc.data(), count, ranks);
          bool integer = t == DType::kI32 || t == DType::kI64;
          bool lowp = t == DType::kF16 || t == DType::kBF16;
          for (std::size_t i = 0; i < count; ++i) {
            double want = expected(op, ranks, i, integer);
            double got = load(t, acc.data(), i);
            INFO(to_string(t) << " " << to_string(op) << " ranks=" << ranks << " i=" << i);
            if (lowp)
              REQUIRE(got == Approx(want).epsilon(t == DType::kBF16 ? 1e-2 : 1e-3));
            else
              REQUIRE(got == want);
          }
        }
}

TEST_CASE("reduce_to writes a third buffer, integer sums wrap") {
  std::vector<std::int32_t> a = {INT32_MAX, 1, -5}, b = {1, 2, 5}, out(3);
  reduce_to(DType::kI32, ReduceOp::kSum, out.data(), a.data(), b.data(), 3);
  CHECK(out == std::vector<std::int32_t>{INT32_MIN, 3, 0});
  CHECK(a[0] == INT32_MAX);
}

TEST_CASE("random f32 sums agree with a double reference within f32 rounding") {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1000, 1000);
  std::vector<float> a(100003), b(a.size()), c(a.size());
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  reduce_to(DType::kF32, ReduceOp::kSum, c.data(), a.data(), b.data(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    REQUIRE(c[i] == static_cast<float>(static_cast<double>(a[i]) + static_cast<double>(b[i])));
}
