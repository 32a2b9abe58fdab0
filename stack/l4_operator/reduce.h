#pragma once
// The reduction kernels the collectives call (L3 uses L4). Plain loops over
// contiguous arrays that the compiler auto-vectorises (-O2 -ftree-vectorize is
// on at -O3, and the loops are written without aliasing or branches).
//
// Contract: reduce_into() computes dst[i] = dst[i] (op) src[i] for i < count.
// dst and src may not overlap unless they are the same pointer. For kAvg it
// sums; call finalize_avg() once on the fully reduced buffer to divide by the
// number of contributors. f16/bf16 are computed in f32 and rounded once per
// call. Integer sum/prod wrap modulo 2^N (two's complement), as MPI does.
// Never throws; count == 0 is a no-op.

#include <cstddef>

#include "stack/l4_operator/dtype.h"

namespace hn::stack::op {

void reduce_into(DType type, ReduceOp op, void* dst, const void* src, std::size_t count);

// dst[i] = a[i] (op) b[i]: saves a copy when the result goes to a third buffer.
void reduce_to(DType type, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count);

// dst[0, bytes) = src[0, bytes): the copy the collectives use (they may not
// overlap). glibc's memcpy moves 4 KiB and more with `rep movsb`, which on
// AMD Zen 3 (at least under KVM) drops from ~45 to ~3 GB/s when dst - src is
// 1 to ~32 bytes past a multiple of 64, as between a malloc'd buffer (16 bytes
// into a page) and a shared-memory ring (bench/README.md "Tuning"); this copies with
// vector loads and stores whatever the alignment.
void copy_bytes(void* dst, const void* src, std::size_t bytes);

// Divides every element by contributors (kAvg). Integers divide with
// truncation toward zero, as C does. No-op for other ops.
void finalize_avg(DType type, void* buf, std::size_t count, int contributors);

}  // namespace hn::stack::op
