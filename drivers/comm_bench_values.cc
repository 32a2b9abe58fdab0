#include "drivers/comm_bench_values.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "stack/l4_operator/element.h"

namespace hn::drivers::bench_values {

using stack::op::DType;
using stack::op::ReduceOp;

namespace {

// splitmix64's finaliser: every input bit reaches every output bit.
[[gnu::always_inline]] inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t salt) {
  return mix(a ^ mix(b ^ (salt << 56)));
}

// The largest L such that every integer in [-L, L] is exact in t, capped at
// 2^20 so that 64-bit types keep readable values.
std::int64_t exact_limit(DType t) {
  switch (t) {
    case DType::kF16:
      return 2048;
    case DType::kBF16:
      return 256;
    default:
      return std::int64_t{1} << 20;
  }
}

unsigned log2_floor(std::uint64_t x) {
  return static_cast<unsigned>(std::bit_width(x) - 1);
}
unsigned log2_ceil(std::uint64_t x) {
  return x <= 1 ? 0 : static_cast<unsigned>(std::bit_width(x - 1));
}

// Number of r in [0, n) with (r + g) mod 2^lg == 0.
std::uint64_t hits(std::uint64_t n, unsigned lg, std::uint64_t g) {
  const std::uint64_t s = std::uint64_t{1} << lg, first = (s - (g & (s - 1))) & (s - 1);
  return n <= first ? 0 : (n - 1 - first) / s + 1;
}

// Sum over r in [0, n) of (r + g) mod 2^lg.
std::uint64_t residue_sum(std::uint64_t n, unsigned lg, std::uint64_t g) {
  const std::uint64_t q = std::uint64_t{1} << lg, rem = n & (q - 1);
  g &= q - 1;
  std::uint64_t s = (n >> lg) * (q * (q - 1) / 2);
  if (g + rem <= q) return s + rem * g + rem * (rem - 1) / 2;
  const std::uint64_t upper = q - g, wrapped = rem - upper;  // g..q-1, then 0..wrapped-1
  return s + (g + q - 1) * upper / 2 + wrapped * (wrapped - 1) / 2;
}

constexpr unsigned kRankWindowLog = 12;  // the rank term changes its offset every 4096 elements

}  // namespace

Values::Values(DType t, ReduceOp op, int ranks, std::uint64_t stamp)
    : t_(t),
      op_(op),
      n_(static_cast<std::uint64_t>(std::max(ranks, 1))),
      stamp_(stamp),
      exact_(!(op == ReduceOp::kAvg && (t == DType::kF16 || t == DType::kBF16))),
      span_(exact_limit(t)) {
  const auto limit = static_cast<std::uint64_t>(span_);
  std::uint64_t q = 1;
  if (n_ > limit) {
    sparse_ = true;
    log_s_ = log2_ceil((n_ + limit - 1) / limit);
  } else {
    const std::uint64_t budget = limit / n_;  // the largest value one rank may add
    log_q_ = log2_floor(std::max<std::uint64_t>(1, std::min(n_, budget / 2)));
    q = std::uint64_t{1} << log_q_;
    log_ma_ = log2_floor(budget - q + 1);
  }
  const unsigned max_doublings = t == DType::kF16 ? 15 : t == DType::kI32 ? 30 : 62;
  log_qe_ = log2_ceil(std::max<std::uint64_t>(2, (n_ + max_doublings - 1) / max_doublings));
  if (op == ReduceOp::kMin || op == ReduceOp::kMax) {
    log_q_ = log2_floor(std::min(n_, limit));
    q = std::uint64_t{1} << log_q_;
    log_ma_ = log2_floor(2 * limit - q + 2);  // B in [-span, span - q + 1]
  }
  log_tw_ = log2_floor(2 * limit + 1);
  // With fewer residues than ranks, the rank term reads bits [k, k + log_q)
  // of the rank, k chosen per window: any two ranks differ in some window.
  const unsigned rank_bits = log2_ceil(n_);
  shifts_ = rank_bits > log_q_ ? rank_bits - log_q_ + 1 : 1;
}

std::uint64_t Values::key_hash(std::uint64_t key) {
  return mix(key ^ (std::uint64_t{2} << 56));
}

// Inlined: it is the whole per-element cost of the batch forms.
[[gnu::always_inline]] inline std::uint64_t Values::window_of(std::size_t i, unsigned lg,
                                                              std::uint64_t key_hash) const {
  return (mix(i ^ key_hash) + stamp_) & ((std::uint64_t{1} << lg) - 1);
}

std::uint64_t Values::window(std::size_t i, unsigned lg, std::uint64_t key) const {
  return window_of(i, lg, key_hash(key));
}

Values::RankTerm Values::rank_term(std::size_t i) const {
  const std::uint64_t h = mix(i >> kRankWindowLog, stamp_, 1);
  return {h & ((std::uint64_t{1} << log_q_) - 1), static_cast<unsigned>((h >> 32) % shifts_)};
}

std::uint64_t Values::rank_value(const RankTerm& k, std::uint64_t r) const {
  return ((r >> k.shift) + k.offset) & ((std::uint64_t{1} << log_q_) - 1);
}

// Over every rank: ranks r >> shift = j for j < groups, each 2^shift times
// (the last group may be short), so the terms are (j + offset) mod q.
std::uint64_t Values::rank_sum(const RankTerm& k) const {
  const std::uint64_t full = n_ >> k.shift, tail = n_ & ((std::uint64_t{1} << k.shift) - 1);
  return (residue_sum(full, log_q_, k.offset) << k.shift) +
         tail * ((full + k.offset) & ((std::uint64_t{1} << log_q_) - 1));
}

std::pair<std::uint64_t, std::uint64_t> Values::rank_min_max(const RankTerm& k) const {
  const std::uint64_t q = std::uint64_t{1} << log_q_, groups = ((n_ - 1) >> k.shift) + 1;
  if (groups >= q) return {0, q - 1};
  // A run of `groups` consecutive residues from offset, wrapping at q.
  if (k.offset + groups > q) return {0, q - 1};
  return {k.offset, k.offset + groups - 1};
}

double Values::input(int rank, std::size_t i) const {
  const auto r = static_cast<std::uint64_t>(rank);
  switch (op_) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg: {
      if (sparse_) {
        const std::uint64_t g = mix(i >> kRankWindowLog, stamp_, 1);
        return ((r + g) & ((std::uint64_t{1} << log_s_) - 1)) == 0 ? 1 : 0;
      }
      return static_cast<double>(1 + window(i, log_ma_, 0) + rank_value(rank_term(i), r));
    }
    case ReduceOp::kProd: {
      const std::uint64_t h = mix(i, stamp_, 3);
      const bool two = ((r + h) & ((std::uint64_t{1} << log_qe_) - 1)) == 0;
      const bool neg = ((r + (h >> 32)) & 3) == 0;
      return (neg ? -1.0 : 1.0) * (two ? 2.0 : 1.0);
    }
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return static_cast<double>(
          -span_ + static_cast<std::int64_t>(window(i, log_ma_, 4) + rank_value(rank_term(i), r)));
  }
  return 0;
}

double Values::reduced(std::size_t i) const {
  switch (op_) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg: {
      std::uint64_t sum;
      if (sparse_)
        sum = hits(n_, log_s_, mix(i >> kRankWindowLog, stamp_, 1));
      else
        sum = n_ * (1 + window(i, log_ma_, 0)) + rank_sum(rank_term(i));
      if (op_ == ReduceOp::kSum) return static_cast<double>(sum);
      if (t_ == DType::kI32 || t_ == DType::kI64) return static_cast<double>(sum / n_);
      return static_cast<double>(sum) / static_cast<double>(n_);
    }
    case ReduceOp::kProd: {
      const std::uint64_t h = mix(i, stamp_, 3);
      const std::uint64_t twos = hits(n_, log_qe_, h), negs = hits(n_, 2, h >> 32);
      return (negs % 2 ? -1.0 : 1.0) * std::ldexp(1.0, static_cast<int>(twos));
    }
    case ReduceOp::kMin:
    case ReduceOp::kMax: {
      const auto [lo, hi] = rank_min_max(rank_term(i));
      return static_cast<double>(
          -span_ +
          static_cast<std::int64_t>(window(i, log_ma_, 4) + (op_ == ReduceOp::kMin ? lo : hi)));
    }
  }
  return 0;
}

// The rank term changes every 2^kRankWindowLog elements: worked out once per
// window. Sparse sums and products hash every element anyway.
void Values::inputs(int rank, std::size_t lo, std::size_t n, double* out) const {
  const bool windowed = !sparse_ && op_ != ReduceOp::kProd;
  if (!windowed) {
    for (std::size_t j = 0; j < n; ++j) out[j] = input(rank, lo + j);
    return;
  }
  const bool sum = op_ == ReduceOp::kSum || op_ == ReduceOp::kAvg;
  const std::uint64_t kh = key_hash(sum ? 0 : 4);
  const std::int64_t base = sum ? 1 : -span_;
  for (std::size_t i = lo, end = lo + n; i < end;) {
    const std::size_t stop = std::min(end, ((i >> kRankWindowLog) + 1) << kRankWindowLog);
    const auto t =
        static_cast<std::int64_t>(rank_value(rank_term(i), static_cast<std::uint64_t>(rank)));
    for (; i < stop; ++i)
      out[i - lo] =
          static_cast<double>(base + t + static_cast<std::int64_t>(window_of(i, log_ma_, kh)));
  }
}

void Values::reduceds(std::size_t lo, std::size_t n, double* out) const {
  const bool windowed = !sparse_ && op_ != ReduceOp::kProd;
  const bool divide = op_ == ReduceOp::kAvg && (t_ == DType::kI32 || t_ == DType::kI64);
  if (!windowed || (op_ == ReduceOp::kAvg && !divide)) {
    for (std::size_t j = 0; j < n; ++j) out[j] = reduced(lo + j);
    return;
  }
  const bool sum = op_ == ReduceOp::kSum || op_ == ReduceOp::kAvg;
  const std::uint64_t kh = key_hash(sum ? 0 : 4);
  for (std::size_t i = lo, end = lo + n; i < end;) {
    const std::size_t stop = std::min(end, ((i >> kRankWindowLog) + 1) << kRankWindowLog);
    const RankTerm k = rank_term(i);
    if (sum) {
      const std::uint64_t rs = rank_sum(k);
      for (; i < stop; ++i) {
        const std::uint64_t s = n_ * (1 + window_of(i, log_ma_, kh)) + rs;
        out[i - lo] = static_cast<double>(divide ? s / n_ : s);
      }
    } else {
      const auto [mn, mx] = rank_min_max(k);
      const auto t = static_cast<std::int64_t>(op_ == ReduceOp::kMin ? mn : mx);
      for (; i < stop; ++i)
        out[i - lo] =
            static_cast<double>(-span_ + t + static_cast<std::int64_t>(window_of(i, log_ma_, kh)));
    }
  }
}

double Values::tag(std::uint64_t source, std::size_t i) const {
  return static_cast<double>(-span_ + static_cast<std::int64_t>(window(i, log_tw_, 6 + source)));
}

bool Values::same(double got, double want) const {
  if (!exact_) {
    double ulp = t_ == DType::kF16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    double scale =
        std::max(std::abs(want), t_ == DType::kF16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126));
    return std::abs(got - want) <= ulp * scale;
  }
  // The kernel divides in f32 and rounds once.
  if (t_ == DType::kF32 && op_ == ReduceOp::kAvg)
    return got == static_cast<double>(static_cast<float>(want));
  return got == want;
}

void put(DType t, void* buf, std::size_t i, double v) {
  stack::op::store_element(t, buf, i, v);
}

double get(DType t, const void* buf, std::size_t i) {
  return stack::op::load_element(t, buf, i);
}

}  // namespace hn::drivers::bench_values
