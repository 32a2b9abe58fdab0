#include "probes/comm_bench_values.h"

#include "stack/l4_operator/element.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "stack/l4_operator/half.h"

namespace hn::probes::bench_values {

using stack::op::DType;
using stack::op::ReduceOp;

namespace {

// Number of r in [0, n) with r % m == k.
long long residue_count(long long n, long long m, long long k) {
  return n <= k ? 0 : (n - 1 - k) / m + 1;
}

}  // namespace

double input(ReduceOp op, int r, int n, std::size_t i) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return static_cast<double>((r + i) % 3) - 1;
    case ReduceOp::kProd:
      return (r + i) % 5 == 0 ? -1 : 1;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return static_cast<double>(((r + i) % static_cast<std::size_t>(n)) % 64 + i % 3);
  }
  return 0;
}

double reduced(ReduceOp op, DType t, int n, std::size_t i) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg: {
      // Ranks with (r+i)%3 == 2 add +1, == 0 add -1.
      long long plus = residue_count(n, 3, static_cast<long long>((5 - i % 3) % 3));
      long long minus = residue_count(n, 3, static_cast<long long>((3 - i % 3) % 3));
      double sum = static_cast<double>(plus - minus);
      if (op == ReduceOp::kSum) return sum;
      if (t == DType::kI32 || t == DType::kI64)
        return static_cast<double>(static_cast<long long>(sum) / n);
      return sum / n;
    }
    case ReduceOp::kProd: {
      long long neg = residue_count(n, 5, static_cast<long long>((5 - i % 5) % 5));
      return neg % 2 ? -1 : 1;
    }
    case ReduceOp::kMin:
      return static_cast<double>(i % 3);
    case ReduceOp::kMax:
      return static_cast<double>(std::min(n - 1, 63) + static_cast<int>(i % 3));
  }
  return 0;
}

double tag(long long from, std::size_t i) {
  return static_cast<double>((13 * from + static_cast<long long>(i % 97)) % 97) - 40;
}

void put(DType t, void* buf, std::size_t i, double v) {
  stack::op::store_element(t, buf, i, v);
}

double get(DType t, const void* buf, std::size_t i) {
  return stack::op::load_element(t, buf, i);
}

bool same(DType t, ReduceOp op, double got, double want) {
  if (op == ReduceOp::kAvg && (t == DType::kF16 || t == DType::kBF16)) {
    double ulp = t == DType::kF16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    double scale =
        std::max(std::abs(want), t == DType::kF16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126));
    return std::abs(got - want) <= ulp * scale;
  }
  if (t == DType::kF32 && op == ReduceOp::kAvg)
    return got == static_cast<double>(static_cast<float>(want));
  return got == want;
}

}  // namespace hn::probes::bench_values
