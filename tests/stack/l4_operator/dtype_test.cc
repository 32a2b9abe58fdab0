#include "stack/l4_operator/dtype.h"

#include <catch2/catch.hpp>

using namespace hn::stack::op;

TEST_CASE("dtype and op names round-trip, aliases and errors") {
  for (DType t : kAllDTypes) CHECK(dtype_from_string(to_string(t)) == t);
  for (ReduceOp op : kAllReduceOps) CHECK(reduce_op_from_string(to_string(op)) == op);
  CHECK(dtype_from_string("bfloat16") == DType::kBF16);
  CHECK(dtype_size(DType::kF16) == 2);
  CHECK(dtype_size(DType::kI64) == 8);
  CHECK_THROWS_WITH(dtype_from_string("f8"), Catch::Contains("expected f32, f64"));
  CHECK_THROWS_WITH(reduce_op_from_string("xor"), Catch::Contains("expected sum"));
}
