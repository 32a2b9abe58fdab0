// The minimal-traffic bound of an allreduce between processes on this host:
// N processes, placed and pinned like `hnprecheck bench --local-ranks N`,
// each read their block of every rank's input once and write the sum into
// their block of every rank's output once, directly in each other's buffers
// (no copy through a ring, no protocol; one barrier ends each iteration).
// No allreduce moves less data, so none is faster with the same placement
// and the same memory. Three kernels do it, and the bound is the fastest:
//   push:   sum a 16 KiB piece into our own output with the L4 kernel the
//           collectives call, then copy it into every other output while it
//           is in L1 (what the direct allreduce does);
//   single: one pass, 8 floats at a time: load them from every input, add,
//           store the sum into every output (no second pass over L1);
//   stream: the same with non-temporal stores (no read-for-ownership of the
//           outputs' lines: wins once the outputs do not fit in the cache).
// Inputs and outputs live in one shared memfd mapping. busbw = size x
// 2(N-1)/N / time, as `bench` reports it.
//
//   membw_bound [--ranks N] [-b MIN] [-e MAX] [-f FACTOR] [--iters N] [--warmup N]
//               [--scheme push|single|stream|best] [--fresh] [--json PATH]
// best (the default) runs all three; the table's time and busbw are the
// fastest's, and three more columns give each kernel's busbw.
// --fresh: before every iteration each rank writes its whole input anew
// (unique per iteration; untimed, then a barrier), as `bench --fresh-inputs`
// does: the inputs come from their writers' caches, not from unchanged lines.
// Bad usage is exit 2; wrong elements are exit 1.
// --fault push|single|stream (tests only) skips that kernel's last store, so
// tests/bench/membw_bound_test.cc can show the check catches it.
//
// Sizes are per-rank buffer bytes of f32, like bench's allreduce sizes. The
// result is checked once per size and kernel (after the timed loop) so the
// bound never comes from a kernel that skipped work. Prints a table; --json
// writes the rows.
#include <immintrin.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "stack/l4_operator/reduce.h"
#include "stack/l5_sched/local_launcher.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace op = hn::stack::op;

struct Args {
  int ranks = 2;
  std::size_t min_bytes = 64 << 10, max_bytes = 256u << 20;
  double factor = 4;
  int iters = 20, warmup = 5;
  std::size_t piece = 16 << 10;
  std::string scheme = "best";
  bool fresh = false;
  std::string fault;  // test only: the kernel that skips its last store
  std::string json;
};

const char* const kKernels[] = {"push", "single", "stream"};

bool is_kernel(const std::string& k) {
  return k == "push" || k == "single" || k == "stream";
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "membw_bound: %s\nusage: membw_bound [--ranks N] [-b MIN] [-e MAX] [-f FACTOR] "
               "[--iters N] [--warmup N] [--scheme push|single|stream|best] [--fresh] "
               "[--json PATH]\n",
               why);
  std::exit(2);
}

std::size_t parse_size(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  std::size_t mult = 1;
  if (*end == 'K' || *end == 'k')
    mult = 1 << 10, ++end;
  else if (*end == 'M' || *end == 'm')
    mult = 1 << 20, ++end;
  else if (*end == 'G' || *end == 'g')
    mult = 1u << 30, ++end;
  if (*end || !(v > 0)) usage("bad size");
  return static_cast<std::size_t>(v * static_cast<double>(mult));
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--fresh") {
      a.fresh = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing value for " + k).c_str());
    const char* v = argv[++i];
    if (k == "--ranks")
      a.ranks = std::atoi(v);
    else if (k == "-b")
      a.min_bytes = parse_size(v);
    else if (k == "-e")
      a.max_bytes = parse_size(v);
    else if (k == "-f")
      a.factor = std::atof(v);
    else if (k == "--iters")
      a.iters = std::atoi(v);
    else if (k == "--warmup")
      a.warmup = std::atoi(v);
    else if (k == "--scheme")
      a.scheme = v;
    else if (k == "--fault")
      a.fault = v;
    else if (k == "--json")
      a.json = v;
    else
      usage(("unknown option " + k).c_str());
  }
  if (a.ranks < 1 || a.ranks > 64 || a.iters < 1 || a.warmup < 0 || !(a.factor > 1) ||
      a.min_bytes > a.max_bytes || a.piece < 1024 ||
      (a.scheme != "best" && !is_kernel(a.scheme)) || (!a.fault.empty() && !is_kernel(a.fault)))
    usage("bad value");
  return a;
}

// Control block at the front of the shared mapping, one cache line per field.
struct alignas(64) Line {
  std::atomic<std::uint64_t> v{0};
};
struct Control {
  Line arrived, generation;
  Line time_ns[64];  // per rank: the timed iterations' duration
};

// out[k][i] = sum over q < n of in[q][i], for k < m, i < len: every input element
// read once, every output element written once. `stream`: non-temporal
// stores (the outputs' lines are not read for ownership first). Compiled for
// AVX2 and for the baseline (target_clones), like the L4 kernels.
using V8 = float __attribute__((vector_size(32)));
using V8U = float __attribute__((vector_size(32), aligned(4)));

__attribute__((target_clones("avx2", "default"))) void sum_to_all(const float* const* in, int n,
                                                                    float* const* out, int m,
                                                                    std::size_t len) {
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    V8 v = *reinterpret_cast<const V8U*>(in[0] + i);
    for (int q = 1; q < n; ++q) v += *reinterpret_cast<const V8U*>(in[q] + i);
    for (int k = 0; k < m; ++k) *reinterpret_cast<V8U*>(out[k] + i) = v;
  }
  for (; i < len; ++i) {
    float v = in[0][i];
    for (int q = 1; q < n; ++q) v += in[q][i];
    for (int k = 0; k < m; ++k) out[k][i] = v;
  }
}

__attribute__((target("avx2"))) void sum_to_all_stream_avx2(const float* const* in, int n,
                                                              float* const* out, int m,
                                                              std::size_t len) {
  std::size_t i = 0;
  // Non-temporal stores need 32-byte aligned destinations: every block
  // starts on one here (blocks are whole 64-byte lines, see Probe).
  for (; i + 8 <= len; i += 8) {
    __m256 v = _mm256_loadu_ps(in[0] + i);
    for (int q = 1; q < n; ++q) v = _mm256_add_ps(v, _mm256_loadu_ps(in[q] + i));
    for (int k = 0; k < m; ++k) _mm256_stream_ps(out[k] + i, v);
  }
  for (; i < len; ++i) {
    float v = in[0][i];
    for (int q = 1; q < n; ++q) v += in[q][i];
    for (int k = 0; k < m; ++k) out[k][i] = v;
  }
  _mm_sfence();
}

void sum_to_all_stream(const float* const* in, int n, float* const* out, int m,
                       std::size_t len) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2)
    sum_to_all_stream_avx2(in, n, out, m, len);
  else
    sum_to_all(in, n, out, m, len);
}

class Probe {
 public:
  // skip: the test fault, the kernel skips its last store of the last piece.
  Probe(Control* ctl, std::byte* data, int n, int r, std::size_t bytes, std::size_t piece,
        bool oversubscribed, bool skip)
      : ctl_(ctl), data_(data), n_(n), r_(r), bytes_(bytes), yield_(oversubscribed), skip_(skip) {
    const std::size_t count = bytes / sizeof(float);
    // Blocks of whole 64-byte lines (16 floats): no line is written by two
    // ranks, and non-temporal stores stay aligned.
    const std::size_t per = ((count + n - 1) / n + 15) / 16 * 16;
    for (int b = 0; b < n; ++b) {
      const std::size_t lo = std::min(count, per * b);
      off_.push_back(lo);
      len_.push_back(std::min(count, lo + per) - lo);
    }
    // 16 KiB pieces by default: the N inputs of a piece stay in L1.
    piece_elems_ = std::max<std::size_t>(16, piece / sizeof(float) / 16 * 16);
  }

  float* in(int rank) const { return reinterpret_cast<float*>(data_ + 2 * bytes_ * rank); }
  float* out(int rank) const {
    return reinterpret_cast<float*>(data_ + 2 * bytes_ * rank + bytes_);
  }

  // This rank's input for iteration `stamp` (0 for every iteration without
  // --fresh). The output starts wrong (-1), so a store one kernel skips is
  // never covered by what the kernel before it wrote.
  void fill(std::uint64_t stamp, bool reset_output) {
    const std::size_t count = bytes_ / sizeof(float);
    const float add = static_cast<float>(stamp % 7);
    for (std::size_t i = 0; i < count; ++i) in(r_)[i] = static_cast<float>((r_ + 1) * (i % 64)) + add;
    if (reset_output)
      for (std::size_t i = 0; i < count; ++i) out(r_)[i] = -1;
  }

  std::size_t wrong(std::uint64_t stamp) const {
    const std::size_t count = bytes_ / sizeof(float);
    const float add = static_cast<float>(n_) * static_cast<float>(stamp % 7);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i)
      bad += out(r_)[i] != static_cast<float>(n_ * (n_ + 1) / 2 * (i % 64)) + add;
    return bad;
  }

  void iteration(const std::string& kernel) {
    const std::size_t off = off_[r_], len = len_[r_];
    const float* ins[64];
    float* outs[64];
    for (std::size_t lo = 0; lo < len; lo += piece_elems_) {
      const std::size_t o = off + lo, l = std::min(piece_elems_, len - lo);
      const bool last = lo + l >= len;
      for (int q = 0; q < n_; ++q) ins[q] = in(q) + o;
      // Our own output first; the skipped store (--fault) is the last rank's.
      for (int k = 0; k < n_; ++k) outs[k] = out((r_ + k) % n_) + o;
      const int stores = skip_ && last && n_ > 1 ? n_ - 1 : n_;
      if (kernel == "push") {
        op::reduce_to(op::DType::kF32, op::ReduceOp::kSum, outs[0], ins[0], ins[n_ > 1 ? 1 : 0], l);
        if (n_ == 1) std::memcpy(outs[0], ins[0], l * sizeof(float));
        for (int q = 2; q < n_; ++q)
          op::reduce_into(op::DType::kF32, op::ReduceOp::kSum, outs[0], ins[q], l);
        for (int k = 1; k < stores; ++k) std::memcpy(outs[k], outs[0], l * sizeof(float));
      } else if (kernel == "single") {
        sum_to_all(ins, n_, outs, stores, l);
      } else {
        sum_to_all_stream(ins, n_, outs, stores, l);
      }
    }
    barrier();
  }

  void barrier() {
    const std::uint64_t gen = ctl_->generation.v.load(std::memory_order_acquire);
    if (ctl_->arrived.v.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<unsigned>(n_)) {
      ctl_->arrived.v.store(0, std::memory_order_relaxed);
      ctl_->generation.v.store(gen + 1, std::memory_order_release);
      return;
    }
    while (ctl_->generation.v.load(std::memory_order_acquire) == gen) relax();
  }

 private:
  void relax() const {
    if (yield_)
      sched_yield();
    else
      _mm_pause();
  }

  Control* ctl_;
  std::byte* data_;
  int n_, r_;
  std::size_t bytes_;
  bool yield_, skip_;
  std::vector<std::size_t> off_, len_;
  std::size_t piece_elems_ = 4096;
};

std::vector<std::size_t> sizes(const Args& a) {
  std::vector<std::size_t> out;
  for (double s = static_cast<double>(a.min_bytes); s <= static_cast<double>(a.max_bytes) + 0.5;
       s *= a.factor)
    out.push_back(static_cast<std::size_t>(s) / sizeof(float) * sizeof(float));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const std::size_t max = sizes(a).back();
  const std::size_t ctl_bytes = (sizeof(Control) + 4095) / 4096 * 4096;
  const std::size_t total = ctl_bytes + 3 * max * static_cast<std::size_t>(a.ranks);
  void* map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    std::perror("membw_bound: mmap");
    return 3;
  }
  auto* ctl = new (map) Control();
  auto* data = static_cast<std::byte*>(map) + ctl_bytes;
  const bool oversubscribed = a.ranks > sysconf(_SC_NPROCESSORS_ONLN);

  hn::stack::sched::LaunchOptions lo;
  lo.ranks = a.ranks;
  auto res = hn::stack::sched::launch_local(lo, [&](int r) {
    nlohmann::json rows = nlohmann::json::array();
    if (r == 0)
      std::printf(
          "# membw_bound: %d rank(s)%s, f32 sum, iters %d, warmup %d%s\n%12s %12s %10s %8s %10s "
          "%10s %10s\n",
          a.ranks, oversubscribed ? " (more ranks than CPUs: yielding waits)" : "", a.iters,
          a.warmup, a.fresh ? ", fresh inputs every iteration" : "", "size(B)", "time(us)",
          "busbw", "#wrong", "push", "single", "stream");
    for (std::size_t bytes : sizes(a)) {
      // One kernel's time (the slowest rank's mean) and this rank's wrong elements.
      auto measure = [&](const std::string& kernel) {
        Probe p(ctl, data, a.ranks, r, bytes, a.piece, oversubscribed, a.fault == kernel);
        std::uint64_t stamp = 0;
        p.fill(stamp, true);
        p.barrier();
        std::uint64_t timed_ns = 0;
        auto once = [&](bool timed) {
          if (a.fresh) {
            p.fill(++stamp, false);
            p.barrier();
          }
          const auto t0 = Clock::now();
          p.iteration(kernel);
          if (timed)
            timed_ns += static_cast<std::uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
        };
        for (int i = 0; i < a.warmup; ++i) once(false);
        for (int i = 0; i < a.iters; ++i) once(true);
        ctl->time_ns[r].v.store(timed_ns, std::memory_order_relaxed);
        const std::size_t bad = p.wrong(stamp);
        p.barrier();
        std::uint64_t worst = 0;
        for (int j = 0; j < a.ranks; ++j) worst = std::max(worst, ctl->time_ns[j].v.load());
        p.barrier();  // nobody refills before every rank has read every time
        return std::pair<double, std::size_t>(static_cast<double>(worst) / 1e3 / a.iters, bad);
      };
      auto busbw = [&](double us) {
        return static_cast<double>(bytes) / (us * 1e3) * 2.0 * (a.ranks - 1) / a.ranks;
      };
      const double nan = std::numeric_limits<double>::quiet_NaN();
      double us = nan, each[3] = {nan, nan, nan};
      std::size_t bad = 0;
      for (int k = 0; k < 3; ++k) {
        if (a.scheme != "best" && a.scheme != kKernels[k]) continue;
        auto [t, w] = measure(kKernels[k]);
        each[k] = t;
        bad += w;
        if (std::isnan(us) || t < us) us = t;  // the bound is the fastest kernel
      }
      if (r == 0) {
        std::printf("%12zu %12.2f %10.3f %8zu %10.3f %10.3f %10.3f\n", bytes, us, busbw(us), bad,
                    busbw(each[0]), busbw(each[1]), busbw(each[2]));
        std::fflush(stdout);
        nlohmann::json row{
            {"size", bytes}, {"time_us", us}, {"busbw_gbps", busbw(us)}, {"wrong", bad}};
        for (int k = 0; k < 3; ++k)
          row[std::string(kKernels[k]) + "_gbps"] =
              std::isnan(each[k]) ? nlohmann::json() : nlohmann::json(busbw(each[k]));
        rows.push_back(row);
      }
      if (bad) return 1;
    }
    if (r == 0 && !a.json.empty()) {
      std::ofstream(a.json) << nlohmann::json{{"ranks", a.ranks},
                                              {"iters", a.iters},
                                              {"fresh_inputs", a.fresh},
                                              {"rows", rows}}
                                   .dump(2)
                            << "\n";
    }
    return 0;
  });
  return res.exit_code;
}
