#pragma once
// Closed-form bench inputs and results: no reference run, O(1) per element,
// exact in every dtype.
//
// One Values object describes one call: (dtype, redop, ranks, stamp). The
// bench gives every call its own stamp, so the inputs differ per rank, per
// element and per call, and a result left over from an earlier call, data
// that landed d elements away or a missing contribution shows as a wrong
// element. Every value is an integer (or +-2^k for prod) small enough that
// every partial result, in any reduction order, is exact in the dtype
// (limit: 2048 f16, 256 bf16, 2^20 otherwise):
//
//   sum/avg  v(r,i) = A(i) + T(r,i), A >= 1, so a sum is >= ranks, never 0,
//            and any missing contribution lowers it; ranks * max(v) <= limit.
//            Beyond `limit` ranks (bf16 > 256) each element is 1 on one rank
//            in 2^s and 0 elsewhere.
//   prod     v(r,i) = +-2^e, e in {0, 1}: at most 15 (f16), 30 (i32) or 62
//            factors of 2 in a product.
//   min/max  v(r,i) = B(i) + T(r,i): min and max are B plus T's extremes.
//   copies   tag(source, i) in [-limit, limit]; the source tells blocks apart.
//
// A(i), B(i) and tag hash the element index (no period: a chunk moved by any
// d differs) plus the stamp (consecutive stamps change every element). The
// rank term T(r,i) = ((r >> k) + g) mod q, with q a power of two <= ranks and
// (k, g) hashed per 4096 elements, has closed-form sums and extremes over the
// ranks and tells any two ranks apart in some window. avg of f16/bf16 is
// compared within half an ulp (the kernel multiplies by 1/n in f32, then
// rounds once); everything else compares exactly.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "stack/l4_operator/dtype.h"

namespace hn::drivers::bench_values {

class Values {
 public:
  Values(stack::op::DType t, stack::op::ReduceOp op, int ranks, std::uint64_t stamp);

  // Reducing collectives: element i of `rank`'s input, and the reduction of
  // element i over every rank (avg: divided as the dtype divides).
  double input(int rank, std::size_t i) const;
  double reduced(std::size_t i) const;
  // The same for elements [lo, lo + n), into out[0, n): what input() and
  // reduced() give element by element, with every hash that does not depend
  // on the element worked out once (a few ns per element against ~20), so
  // that writing and checking a call's buffers costs about what the peers'
  // harnesses spend on theirs.
  void inputs(int rank, std::size_t lo, std::size_t n, double* out) const;
  void reduceds(std::size_t lo, std::size_t n, double* out) const;
  // Copying collectives: element i of the block that `source` sends.
  double tag(std::uint64_t source, std::size_t i) const;
  // Whether `got` is an acceptable result for `want` (see above).
  bool same(double got, double want) const;
  // Whether same() is bit-exact equality of the stored element.
  bool exact() const { return exact_; }

  stack::op::DType dtype() const { return t_; }
  stack::op::ReduceOp op() const { return op_; }

 private:
  struct RankTerm {
    std::uint64_t offset;
    unsigned shift;
  };
  // 2^lg values from a hash of (i, key), moved by the stamp: consecutive
  // stamps change every element.
  std::uint64_t window(std::size_t i, unsigned lg, std::uint64_t key) const;
  // window() with the hash of its key already worked out (key_hash()).
  std::uint64_t window_of(std::size_t i, unsigned lg, std::uint64_t key_hash) const;
  static std::uint64_t key_hash(std::uint64_t key);
  RankTerm rank_term(std::size_t i) const;
  std::uint64_t rank_value(const RankTerm& k, std::uint64_t rank) const;
  std::uint64_t rank_sum(const RankTerm& k) const;                                // over all ranks
  std::pair<std::uint64_t, std::uint64_t> rank_min_max(const RankTerm& k) const;  // over all ranks

  stack::op::DType t_;
  stack::op::ReduceOp op_;
  std::uint64_t n_, stamp_;
  bool exact_;
  std::int64_t span_;  // |value| <= span_ (the dtype's exact limit, at most 2^20)
  // sum/avg: A in [1, 2^log_ma_]; min/max: B in [-span, -span + 2^log_ma_);
  // rank term in [0, 2^log_q_), reading the rank shifted right by < shifts_.
  unsigned log_ma_ = 0, log_q_ = 0, shifts_ = 1;
  bool sparse_ = false;  // sum/avg beyond the exact limit: 1 on one rank in 2^log_s_
  unsigned log_s_ = 0;
  unsigned log_qe_ = 1;  // prod: a factor 2 on one rank in 2^log_qe_
  unsigned log_tw_ = 0;  // tags: 2^log_tw_ values from -span
};

// Element i of a buffer of type t, through double (stack/l4_operator/element.h).
void put(stack::op::DType t, void* buf, std::size_t i, double v);
double get(stack::op::DType t, const void* buf, std::size_t i);

}  // namespace hn::drivers::bench_values
