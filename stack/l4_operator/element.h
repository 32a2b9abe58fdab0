#pragma once
// One element of a typed buffer, converted through double: the slow, exact
// path for reference values, verification and tests (kernels work on whole
// buffers in their compute type instead). Storing rounds to the dtype (f16 and
// bf16 go through float, then round to nearest even; integers truncate toward
// zero, saturate out of range, and NaN stores as 0); loading is exact
// except for i64 beyond 2^53. `i` is an element index; the buffer need not be
// aligned. Never throws.

#include <cstddef>

#include "stack/l4_operator/dtype.h"

namespace hn::stack::op {

double load_element(DType t, const void* buf, std::size_t i);
void store_element(DType t, void* buf, std::size_t i, double v);

}  // namespace hn::stack::op
