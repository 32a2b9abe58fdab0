#pragma once
// The allreduce matrix the path tests share: every dtype x every op x each
// count x in place or not, with algorithm `a`, on buffers `in` and `out`
// (each at least the largest count x 8 bytes: heap or windows, as the path
// needs), inputs from expected.h, the output poisoned with 0x5a before each
// call, and every element checked. on_call(dtype, count) runs after each
// call (a path test counts what should have taken its path). Throws
// std::runtime_error naming the call and its first wrong element.

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "stack/l3_comm/collectives.h"
#include "tests/stack/l3_comm/expected.h"

namespace hn::test {

// counts_of(dtype) gives the counts for that dtype (a path whose limits are
// in bytes tests each dtype at its own edges).
template <typename CountsOf, typename OnCall>
void allreduce_matrix(stack::comm::Communicator& c, stack::comm::Algorithm a, std::byte* in,
                      std::byte* out, CountsOf counts_of, OnCall on_call) {
  const int n = c.size(), r = c.rank();
  for (auto dtype : stack::op::kAllDTypes)
    for (auto op : stack::op::kAllReduceOps)
      for (std::size_t count : counts_of(dtype))
        for (bool inplace : {false, true}) {
          stack::comm::Options o;
          o.dtype = dtype;
          o.op = op;
          o.algorithm = a;
          for (std::size_t i = 0; i < count; ++i) put(dtype, in, i, input_value(op, r, i));
          std::memset(out, 0x5a, count * stack::op::dtype_size(dtype));
          std::byte* dst = inplace ? in : out;
          stack::comm::allreduce(c, in, dst, count, o);
          on_call(dtype, count);
          for (std::size_t i = 0; i < count; ++i) {
            const double want = expected_value(op, dtype, n, i), got = get(dtype, dst, i);
            if (got != want) {
              std::ostringstream what;
              what << to_string(dtype) << " " << to_string(op) << " count=" << count
                   << (inplace ? " in place" : "") << " on " << n << " ranks: element " << i
                   << " is " << got << ", expected " << want;
              throw std::runtime_error(what.str());
            }
          }
        }
}

// The same counts for every dtype.
template <typename OnCall>
void allreduce_matrix(stack::comm::Communicator& c, stack::comm::Algorithm a, std::byte* in,
                      std::byte* out, std::initializer_list<std::size_t> counts, OnCall on_call) {
  allreduce_matrix(
      c, a, in, out, [counts](stack::op::DType) { return counts; }, on_call);
}

}  // namespace hn::test
