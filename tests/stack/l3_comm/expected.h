#pragma once
// Closed-form inputs and results for the collective tests. Every value is a
// small integer or half-integer, exact in every dtype, so results compare
// bit for bit whatever the reduction order.
//   sum/avg: v(r,i) = (r+1) + i%5      sum = n(n+1)/2 + n*(i%5)
//   prod:    v(r,i) = 1 + (r+i)%2      prod = 2^(ranks with r+i odd)
//   min/max: v(r,i) = (7r+3i)%11 - 5   fold over r (n <= 8 terms)
// avg is sum/n: exact for floats (half-integers), truncated for integers.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "stack/l4_operator/dtype.h"
#include "stack/l4_operator/element.h"
#include "stack/l4_operator/half.h"

namespace hn::test {

using stack::op::DType;
using stack::op::ReduceOp;

inline double input_value(ReduceOp op, int r, std::size_t i) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return (r + 1) + static_cast<double>(i % 5);
    case ReduceOp::kProd:
      return 1 + static_cast<double>((r + i) % 2);
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return static_cast<double>((7 * r + 3 * i) % 11) - 5;
  }
  return 0;
}

inline double expected_value(ReduceOp op, DType t, int n, std::size_t i) {
  switch (op) {
    case ReduceOp::kSum:
      return n * (n + 1) / 2.0 + n * static_cast<double>(i % 5);
    case ReduceOp::kAvg: {
      double sum = n * (n + 1) / 2.0 + n * static_cast<double>(i % 5);
      bool integer = t == DType::kI32 || t == DType::kI64;
      return integer ? static_cast<double>(static_cast<long long>(sum) / n) : sum / n;
    }
    case ReduceOp::kProd: {
      double p = 1;
      for (int r = 0; r < n; ++r) p *= input_value(op, r, i);
      return p;
    }
    case ReduceOp::kMin:
    case ReduceOp::kMax: {
      double m = input_value(op, 0, i);
      for (int r = 1; r < n; ++r) {
        double v = input_value(op, r, i);
        m = op == ReduceOp::kMin ? std::min(m, v) : std::max(m, v);
      }
      return m;
    }
  }
  return 0;
}

// Element i of a buffer of type t, through double.
inline void put(DType t, void* buf, std::size_t i, double v) {
  stack::op::store_element(t, buf, i, v);
}
inline double get(DType t, const void* buf, std::size_t i) {
  return stack::op::load_element(t, buf, i);
}

}  // namespace hn::test
