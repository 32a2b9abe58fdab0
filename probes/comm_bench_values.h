#pragma once
// Closed-form bench inputs and results (no reference run needed), exact in
// every dtype for any rank count the bench runs with:
//   sum/avg: v(r,i) = (r+i)%3 - 1            sum over n ranks in O(1)
//   prod:    v(r,i) = -1 if (r+i)%5 == 0, else 1   prod = +-1
//   min/max: v(r,i) = ((r+i)%n)%64 + i%3      min = i%3, max = min(n-1,63) + i%3
//   copies:  tag(from,i) = (13*from + i)%97 - 40
// avg of f16/bf16 is compared within half an ulp of the type (the kernel
// multiplies by 1/n in f32, then rounds once); everything else is exact.

#include <cstddef>

#include "stack/l4_operator/dtype.h"

namespace hn::probes::bench_values {

double input(stack::op::ReduceOp op, int rank, int n, std::size_t i);
double reduced(stack::op::ReduceOp op, stack::op::DType t, int n, std::size_t i);
double tag(long long from, std::size_t i);

void put(stack::op::DType t, void* buf, std::size_t i, double v);
double get(stack::op::DType t, const void* buf, std::size_t i);
bool same(stack::op::DType t, stack::op::ReduceOp op, double got, double want);

}  // namespace hn::probes::bench_values
