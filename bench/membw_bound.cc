// The memory-bandwidth bound of an allreduce between processes on this host:
// what N processes placed and pinned like `hnprecheck bench --local-ranks N`
// reach on each other's buffers directly (no copy through a ring, no
// protocol: the buffers never move, and one barrier ends each iteration),
// in two schemes. Both sum block r of every rank's input into rank r's
// output, 16 KiB at a time, with the L4 kernel the collectives call.
//   pull (the bound issue 16 defined): then every rank copies the other
//     blocks from the ranks that reduced them, each piece as soon as its
//     owner has published it (a release/acquire counter per rank);
//   push (what the direct allreduce does): rank r writes each reduced piece
//     into every rank's output while it is in its cache.
// Inputs and outputs live in one shared memfd mapping. Each rank has one
// input buffer (bench alternates two for its verification, and warms both
// before timing). busbw = size x 2(N-1)/N / time, as `bench` reports it.
//
//   membw_bound [--ranks N] [-b MIN] [-e MAX] [-f FACTOR] [--iters N] [--warmup N]
//               [--scheme pull|push|best] [--json PATH]
// best (the default) runs both; the table's time and busbw are the faster
// scheme's, and two more columns give each scheme's busbw (`bench/compare.sh`
// reads them: the pull probe is its "bound", the push probe is printed
// beside it). Bad usage is exit 2; wrong elements are exit 1.
// --fault pull|push (tests only) skips that scheme's last copy, so
// tests/bench/membw_bound_test.cc can show the check catches it.
//
// Sizes are per-rank buffer bytes of f32, like bench's allreduce sizes. The
// result is checked once per size and scheme (untimed) so the bound never
// comes from a probe that skipped work. Prints a table; --json writes the
// rows.
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
  std::string fault;  // test only: "pull" or "push" skips that scheme's last copy
  std::string json;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "membw_bound: %s\nusage: membw_bound [--ranks N] [-b MIN] [-e MAX] [-f FACTOR] "
               "[--iters N] [--warmup N] [--scheme pull|push|best] [--json PATH]\n",
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
      (a.scheme != "pull" && a.scheme != "push" && a.scheme != "best") ||
      (!a.fault.empty() && a.fault != "pull" && a.fault != "push"))
    usage("bad value");
  return a;
}

// Control block at the front of the shared mapping, one cache line per field.
struct alignas(64) Line {
  std::atomic<std::uint64_t> v{0};
};
struct Control {
  Line arrived, generation;
  Line reduced[64];  // per rank: pieces reduced so far (running count)
  Line time_ns[64];  // per rank: the timed loop's duration
};

class Probe {
 public:
  // skip: the test fault, the scheme run skips its last copy of the last piece.
  Probe(Control* ctl, std::byte* data, int n, int r, std::size_t bytes, std::size_t piece,
        bool oversubscribed, bool skip)
      : ctl_(ctl), data_(data), n_(n), r_(r), bytes_(bytes), yield_(oversubscribed), skip_(skip) {
    const std::size_t count = bytes / sizeof(float);
    for (int b = 0; b < n; ++b) {
      off_.push_back(count / n * b + std::min<std::size_t>(b, count % n));
      len_.push_back(count / n + (static_cast<std::size_t>(b) < count % n ? 1 : 0));
    }
    // 16 KiB pieces by default: the N-way sum of a piece stays in L1, the
    // copies follow the reductions closely, and one atomic per piece costs
    // nothing.
    pieces_ = std::max<std::size_t>(1, len_[0] * sizeof(float) / piece);
    ctl_->reduced[r_].v.store(0, std::memory_order_relaxed);  // read only after the next barrier
  }

  float* in(int rank) const { return reinterpret_cast<float*>(data_ + 2 * bytes_ * rank); }
  float* out(int rank) const {
    return reinterpret_cast<float*>(data_ + 2 * bytes_ * rank + bytes_);
  }

  void fill() {
    const std::size_t count = bytes_ / sizeof(float);
    // The output starts wrong (-1), so a copy one scheme skips is never
    // covered by what the scheme before it wrote.
    for (std::size_t i = 0; i < count; ++i) {
      in(r_)[i] = static_cast<float>((r_ + 1) * (i % 64));
      out(r_)[i] = -1;
    }
  }

  std::size_t wrong() const {
    const std::size_t count = bytes_ / sizeof(float);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i)
      bad += out(r_)[i] != static_cast<float>(n_ * (n_ + 1) / 2 * (i % 64));
    return bad;
  }

  // Sums piece p of our block of every rank's input into our output; returns
  // where it landed and sets its offset and length (elements).
  float* reduce_piece(std::size_t p, std::size_t& o, std::size_t& l) {
    piece(r_, p, o, l);
    float* dst = out(r_) + o;
    op::reduce_to(op::DType::kF32, op::ReduceOp::kSum, dst, in(0) + o, in(n_ > 1 ? 1 : 0) + o, l);
    if (n_ == 1) std::memcpy(dst, in(0) + o, l * sizeof(float));
    for (int j = 2; j < n_; ++j)
      op::reduce_to(op::DType::kF32, op::ReduceOp::kSum, dst, dst, in(j) + o, l);
    return dst;
  }

  void iteration() {
    // Reduce our block of every rank's input, piece by piece, publishing each.
    for (std::size_t p = 0; p < pieces_; ++p) {
      std::size_t o, l;
      reduce_piece(p, o, l);
      ctl_->reduced[r_].v.fetch_add(1, std::memory_order_release);
    }
    ++iter_;
    // Copy the other blocks as their owners publish them.
    for (int k = 1; k < n_; ++k) {
      const int j = (r_ + k) % n_;
      for (std::size_t p = 0; p < pieces_; ++p) {
        const std::uint64_t want = (iter_ - 1) * pieces_ + p + 1;
        while (ctl_->reduced[j].v.load(std::memory_order_acquire) < want) relax();
        std::size_t o, l;
        piece(j, p, o, l);
        if (skip_ && k == n_ - 1 && p == pieces_ - 1) continue;  // --fault pull
        std::memcpy(out(r_) + o, out(j) + o, l * sizeof(float));
      }
    }
    barrier();
  }

  // Push: reduce our block piece by piece and write each piece into every
  // rank's output while it is in cache (what the direct allreduce does);
  // one barrier ends the iteration.
  void iteration_push() {
    for (std::size_t p = 0; p < pieces_; ++p) {
      std::size_t o, l;
      const float* dst = reduce_piece(p, o, l);
      for (int k = 1; k < n_; ++k) {
        if (skip_ && k == n_ - 1 && p == pieces_ - 1) continue;  // --fault push
        std::memcpy(out((r_ + k) % n_) + o, dst, l * sizeof(float));
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
  void piece(int block, std::size_t p, std::size_t& off, std::size_t& len) const {
    const std::size_t l = len_[block];
    const std::size_t a = l * p / pieces_, b = l * (p + 1) / pieces_;
    off = off_[block] + a;
    len = b - a;
  }

  Control* ctl_;
  std::byte* data_;
  int n_, r_;
  std::size_t bytes_;
  bool yield_, skip_;
  std::vector<std::size_t> off_, len_;
  std::size_t pieces_ = 1;
  std::uint64_t iter_ = 0;
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
          "# membw_bound: %d rank(s)%s, f32 sum, iters %d, warmup %d\n%12s %12s %10s %8s %10s "
          "%10s\n",
          a.ranks, oversubscribed ? " (more ranks than CPUs: yielding waits)" : "", a.iters,
          a.warmup, "size(B)", "time(us)", "busbw", "#wrong", "pull", "push");
    for (std::size_t bytes : sizes(a)) {
      // One scheme's time (the slowest rank's) and this rank's wrong elements.
      auto measure = [&](bool push) {
        Probe p(ctl, data, a.ranks, r, bytes, a.piece, oversubscribed,
                a.fault == (push ? "push" : "pull"));
        p.fill();
        p.barrier();
        auto once = [&] { push ? p.iteration_push() : p.iteration(); };
        for (int i = 0; i < a.warmup; ++i) once();
        const auto t0 = Clock::now();
        for (int i = 0; i < a.iters; ++i) once();
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
        ctl->time_ns[r].v.store(static_cast<std::uint64_t>(ns.count()), std::memory_order_relaxed);
        const std::size_t bad = p.wrong();
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
      std::pair<double, std::size_t> pull{nan, 0}, push{nan, 0};
      if (a.scheme != "push") pull = measure(false);
      if (a.scheme != "pull") push = measure(true);
      // The bound is the faster scheme (a NaN never wins).
      const double us = std::isnan(pull.first) || push.first < pull.first ? push.first : pull.first;
      const std::size_t bad = pull.second + push.second;
      if (r == 0) {
        std::printf("%12zu %12.2f %10.3f %8zu %10.3f %10.3f\n", bytes, us, busbw(us), bad,
                    busbw(pull.first), busbw(push.first));
        std::fflush(stdout);
        rows.push_back({{"size", bytes},
                        {"time_us", us},
                        {"busbw_gbps", busbw(us)},
                        {"wrong", bad},
                        {"pull_gbps", std::isnan(pull.first) ? nlohmann::json()
                                                             : nlohmann::json(busbw(pull.first))},
                        {"push_gbps", std::isnan(push.first) ? nlohmann::json()
                                                             : nlohmann::json(busbw(push.first))}});
      }
      if (bad) return 1;
    }
    if (r == 0 && !a.json.empty()) {
      std::ofstream(a.json)
          << nlohmann::json{{"ranks", a.ranks}, {"iters", a.iters}, {"rows", rows}}.dump(2) << "\n";
    }
    return 0;
  });
  return res.exit_code;
}
