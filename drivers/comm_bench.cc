#include "drivers/comm_bench.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "stack/l3_comm/aligned_buffer.h"
#include "stack/l3_comm/fault_injection.h"

namespace hn::drivers {

namespace comm = stack::comm;
namespace bv = bench_values;
using stack::op::DType;
using stack::op::ReduceOp;

namespace {

// One stamp per call: size index z, call kind k (0 and 1 alternate through
// the warm-up and timed calls, 2 is the full check).
std::uint64_t stamp(std::size_t z, std::uint64_t k) {
  return (static_cast<std::uint64_t>(z + 1) << 32) | k;
}

// Elements worked out per batch: the batch stays in L1 beside its target.
constexpr std::size_t kBatch = 2048;

// v[0, n) stored as elements [lo, lo + n) of buf: one switch per batch, not
// per element, for the types whose conversion is a cast.
void store_range(DType t, void* buf, std::size_t lo, const double* __restrict v, std::size_t n) {
  auto cast = [&](auto* __restrict p) {
    using T = std::remove_reference_t<decltype(*p)>;
    for (std::size_t j = 0; j < n; ++j) p[lo + j] = static_cast<T>(v[j]);
  };
  switch (t) {
    case DType::kF32:
      return cast(static_cast<float*>(buf));
    case DType::kF64:
      return cast(static_cast<double*>(buf));
    case DType::kI32:
      return cast(static_cast<std::int32_t*>(buf));
    case DType::kI64:
      return cast(static_cast<std::int64_t*>(buf));
    default:
      for (std::size_t j = 0; j < n; ++j) bv::put(t, buf, lo + j, v[j]);
  }
}

void fill(const BenchColl& coll, const BenchCall& call, DType t, void* buf, std::size_t elems) {
  double v[kBatch];
  for (std::size_t lo = 0; lo < elems; lo += kBatch) {
    const std::size_t n = std::min(kBatch, elems - lo);
    coll.input_range(call, lo, n, v);
    store_range(t, buf, lo, v, n);
  }
}

// Output elements [lo, hi) that differ from the expected result.
long long count_wrong(const BenchColl& coll, const BenchCall& call, DType t, const void* out,
                      std::size_t lo, std::size_t hi) {
  long long wrong = 0;
  for (std::size_t e = lo; e < hi; ++e)
    if (!call.values.same(bv::get(t, out, e), coll.expected(call, e))) ++wrong;
  return wrong;
}

// kSpotChecks output elements of one call's expected result, prepared before
// the timing starts: the first, the last, and one at a hashed place in each
// segment between. Checking costs a load and a compare per element.
class SpotCheck {
 public:
  SpotCheck(const BenchColl& coll, const BenchCall& call, DType t) : t_(t), values_(&call.values) {
    const std::size_t n = coll.checked(call), k = std::min(n, kSpotChecks);
    for (std::size_t j = 0; j < k; ++j) {
      std::size_t p = j == 0 ? 0 : j == k - 1 ? n - 1 : 0;
      if (j > 0 && j < k - 1) {
        const std::size_t lo = n * j / k, hi = n * (j + 1) / k;
        p = lo + (j * 2654435761u) % std::max<std::size_t>(1, hi - lo);
      }
      pos_.push_back(p);
      want_.push_back(coll.expected(call, p));
    }
    const std::size_t esz = stack::op::dtype_size(t);
    bits_.resize(pos_.size() * esz);
    for (std::size_t j = 0; j < pos_.size(); ++j) bv::put(t, bits_.data(), j, want_[j]);
  }

  long long wrong(const void* out) const {
    const auto* o = static_cast<const std::byte*>(out);
    const std::size_t esz = stack::op::dtype_size(t_);
    long long bad = 0;
    for (std::size_t j = 0; j < pos_.size(); ++j) {
      if (std::memcmp(o + pos_[j] * esz, bits_.data() + j * esz, esz) == 0) continue;
      // Not bit-identical: wrong, unless the comparison has a tolerance (avg of f16/bf16).
      if (values_->exact() || !values_->same(bv::get(t_, out, pos_[j]), want_[j])) ++bad;
    }
    return bad;
  }

 private:
  DType t_;
  const bv::Values* values_;
  std::vector<std::size_t> pos_;
  std::vector<double> want_;
  std::vector<std::byte> bits_;
};

// The whole-output check of a --fresh-inputs call, run after the ranks meet
// behind the timed call (so it never holds a CPU a peer still needs). The
// expected values are worked out a batch at a time, stored as the dtype
// stores them into a buffer that stays in L1, and compared at memory speed;
// a batch that differs, and every call whose comparison has a tolerance (avg
// of f16/bf16, which cannot be compared as bits), is counted element by
// element with Values::same. Why batches: the check and the next fill are
// the gap before the next call, and on this VM a long gap slows the call
// itself (bench/idle_gap.cc; bench/README.md, compare), so they must cost
// about what the peers' harnesses spend; and no second copy of the output
// joins the call's working set.
class FullCheck {
 public:
  long long wrong(const BenchColl& coll, const BenchCall& call, DType t, const void* out) {
    const std::size_t n = coll.checked(call);
    if (!call.values.exact()) return count_wrong(coll, call, t, out, 0, n);
    const std::size_t esz = stack::op::dtype_size(t);
    long long w = 0;
    for (std::size_t lo = 0; lo < n; lo += kBatch) {
      const std::size_t hi = std::min(n, lo + kBatch);
      coll.expected_range(call, lo, hi - lo, v_);
      store_range(t, want_, 0, v_, hi - lo);
      if (std::memcmp(static_cast<const std::byte*>(out) + lo * esz, want_, (hi - lo) * esz) != 0)
        w += count_wrong(coll, call, t, out, lo, hi);
    }
    return w;
  }

 private:
  double v_[kBatch];
  alignas(64) std::byte want_[kBatch * sizeof(double)];
};

// Every rank gets the maximum (time) or the sums (wrong counts). Bookkeeping:
// never under a test fault.
double max_over_ranks(comm::Communicator& c, double v) {
  comm::testing::FaultPause pause(c);
  comm::Options o;
  o.dtype = DType::kF64;
  o.op = ReduceOp::kMax;
  double out = v;
  comm::allreduce(c, &v, &out, 1, o);
  return out;
}

void sum_over_ranks(comm::Communicator& c, long long& a, long long& b) {
  comm::testing::FaultPause pause(c);
  comm::Options o;
  o.dtype = DType::kI64;
  o.op = ReduceOp::kSum;
  std::int64_t in[2] = {a, b}, out[2] = {0, 0};
  comm::allreduce(c, in, out, 2, o);
  a = out[0];
  b = out[1];
}

// One of the bench's buffers: a window of the communicator (collective to
// make and sized once for the whole sweep) or private heap memory.
class BenchBuffer {
 public:
  BenchBuffer(comm::Communicator& c, bool window, std::size_t bytes) : c_(c) {
    if (window)
      window_ = static_cast<std::byte*>(c.alloc_window(bytes));
    else
      heap_.reserve(bytes);  // aligned at least as PyTorch aligns a CPU tensor (64 bytes)
  }
  ~BenchBuffer() {
    if (window_) c_.free_window(window_);
  }
  BenchBuffer(const BenchBuffer&) = delete;
  BenchBuffer& operator=(const BenchBuffer&) = delete;
  std::byte* data() { return window_ ? window_ : heap_.data(); }

 private:
  comm::Communicator& c_;
  std::byte* window_ = nullptr;
  comm::AlignedBuffer heap_;
};

}  // namespace

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor) {
  std::vector<std::size_t> out;
  double s = static_cast<double>(min_bytes);
  while (s <= static_cast<double>(max_bytes) + 0.5) {
    out.push_back(static_cast<std::size_t>(s));
    if (factor <= 1 || out.size() > kMaxSweepSizes) break;
    s = std::max(s * factor, s + 1);
  }
  return out;
}

double bus_factor(BenchOp op, int n) {
  return bench_coll(op).bus_factor(n);
}

std::vector<BenchRow> run_bench(comm::Communicator& c, const BenchConfig& cfg) {
  using Clock = std::chrono::steady_clock;
  const BenchColl& coll = bench_coll(cfg.op);
  const int n = c.size(), r = c.rank(), root = cfg.options.root;
  const DType t = cfg.options.dtype;
  const ReduceOp op = cfg.options.op;
  const std::size_t esz = stack::op::dtype_size(t);
  std::vector<BenchRow> rows;
  const std::vector<std::size_t> sizes = sweep_sizes(cfg.min_bytes, cfg.max_bytes, cfg.factor);
  std::size_t in_max = 1, out_max = 1;  // bytes, for the largest size
  for (std::size_t size : sizes) {
    const std::size_t count = coll.count_for(size, n, esz);
    in_max = std::max(in_max, coll.in_elems(count, n) * esz + 1);
    out_max = std::max(out_max, coll.out_elems(count, n) * esz + 1);
  }
  BenchBuffer in[2] = {{c, cfg.window_buffers, in_max}, {c, cfg.window_buffers, in_max}};
  BenchBuffer out(c, cfg.window_buffers, out_max);
  std::size_t z = 0;
  for (std::size_t size : sizes) {
    BenchRow row;
    row.count = coll.count_for(size, n, esz);
    row.bytes = coll.bytes_for(row.count, n, esz);
    const std::size_t in_elems = coll.in_elems(row.count, n);
    const std::size_t out_size = coll.out_elems(row.count, n) * esz + 1;

    // The warm-up and timed calls alternate between inputs A and B.
    const bv::Values values[2] = {{t, op, n, stamp(z, 0)}, {t, op, n, stamp(z, 1)}};
    std::vector<SpotCheck> spots;
    for (int b = 0; b < 2; ++b) {
      const BenchCall call{values[b], r, n, root, row.count};
      fill(coll, call, t, in[b].data(), in_elems);
      if (cfg.check) spots.emplace_back(coll, call, t);
    }
    long long spot_wrong = 0;
    unsigned k = 0;
    // The options of the next call: with a deadline, its timeout is what is left.
    auto call_options = [&] {
      if (!cfg.deadline) return cfg.options;
      comm::Options o = cfg.options;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*cfg.deadline - Clock::now());
      const auto cap = o.timeout.count() > 0 ? o.timeout : left;
      o.timeout = std::max(std::min(left, cap), std::chrono::milliseconds(1));
      return o;
    };
    auto once = [&] {
      const unsigned b = k++ & 1;
      coll.run(c, in[b].data(), out.data(), row.count, call_options());
      if (!spots.empty()) spot_wrong += spots[b].wrong(out.data());
    };
    // At least one warm-up call per input buffer: the alternation exists only
    // for the verification, and the first call on a buffer pays for it (on
    // shm each peer's first read of a window faults in its page tables: at
    // 64 MiB with one warm-up call that halved busbw on this VM, where a
    // minor fault costs 15-25 us per 4 KiB page). --warmup 0 stays cold.
    const int warmup = cfg.warmup > 0 ? std::max(cfg.warmup, 2) : 0;
    if (cfg.fresh_inputs) {
      // Per call: write this call's inputs, time the collective alone, read
      // and check the whole output. Stamps from 3 up: unique per call.
      double timed_us = 0;
      std::uint64_t kind = 3;
      FullCheck full;
      auto fresh_call = [&](bool timed) {
        const bv::Values v(t, op, n, stamp(z, kind++));
        const BenchCall call{v, r, n, root, row.count};
        fill(coll, call, t, in[0].data(), in_elems);
        const comm::Options o = call_options();
        if (timed) {
          // Ranks meet after writing: a slower writer's fill is not counted
          // as the collective's time on the ranks that wait for it.
          comm::testing::FaultPause pause(c);
          comm::barrier(c);
        }
        const auto s = Clock::now();
        coll.run(c, in[0].data(), out.data(), row.count, o);
        if (timed) {
          timed_us += std::chrono::duration<double, std::micro>(Clock::now() - s).count();
          // And again before the check and the next fill: a rank done first
          // would otherwise run them on a CPU that a peer sharing it still
          // needs to finish its timed call (4 ranks on 2 CPUs, 64 KiB: one
          // rank per CPU took 450-650 us against 20-50 us for the other).
          comm::testing::FaultPause pause(c);
          comm::barrier(c);
        }
        const long long w = full.wrong(coll, call, t, out.data());
        if (cfg.check) spot_wrong += w;
      };
      for (int i = 0; i < warmup; ++i) fresh_call(false);
      {
        comm::testing::FaultPause pause(c);
        comm::barrier(c);
      }
      for (int i = 0; i < cfg.iters; ++i) fresh_call(true);
      row.time_us = max_over_ranks(c, timed_us / std::max(cfg.iters, 1));
      row.algbw = row.time_us > 0 ? static_cast<double>(row.bytes) / (row.time_us * 1e3) : 0;
      row.busbw = row.algbw * coll.bus_factor(n);
      if (cfg.check) {
        long long none = 0;
        sum_over_ranks(c, none, spot_wrong);
        row.wrong = spot_wrong;
        row.wrong_spot = spot_wrong;
      }
      rows.push_back(row);
      ++z;
      continue;
    }
    for (int i = 0; i < warmup; ++i) once();
    {
      comm::testing::FaultPause pause(c);
      comm::barrier(c);
    }
    const auto t0 = Clock::now();
    for (int i = 0; i < cfg.iters; ++i) once();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
                      std::max(cfg.iters, 1);
    row.time_us = max_over_ranks(c, us);
    row.algbw = row.time_us > 0 ? static_cast<double>(row.bytes) / (row.time_us * 1e3) : 0;
    row.busbw = row.algbw * coll.bus_factor(n);
    if (cfg.check) {
      // Apart from timing: fresh inputs, a poisoned output, every element.
      const bv::Values fresh(t, op, n, stamp(z, 2));
      const BenchCall call{fresh, r, n, root, row.count};
      fill(coll, call, t, in[0].data(), in_elems);
      std::memset(out.data(), 0xa5, out_size);
      coll.run(c, in[0].data(), out.data(), row.count, call_options());
      long long full = count_wrong(coll, call, t, out.data(), 0, coll.checked(call));
      sum_over_ranks(c, full, spot_wrong);
      row.wrong = full + spot_wrong;
      row.wrong_spot = spot_wrong;
    }
    rows.push_back(row);
    ++z;
  }
  return rows;
}

}  // namespace hn::drivers
