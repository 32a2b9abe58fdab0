// The sweep the peer drivers share: sizes, iteration counts and the output
// line, so their tables line up with `hnprecheck bench --json`.
//   driver PLAN [extra...]
// PLAN is one or more groups "MIN:MAX:FACTOR:ITERS:WARMUP" joined by ','
// (sizes MIN, MIN*FACTOR, ... <= MAX, each timed over ITERS calls after
// WARMUP), so one launch covers every size. Rank 0 prints one line per size:
// "<bytes> <time_us> <busbw_GBps> <wrong>"; time is the slowest rank's mean;
// busbw = bytes/time * 2(n-1)/n.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

struct SweepStep {
  size_t bytes;
  int iters, warmup;
};

inline std::vector<SweepStep> parse_plan(const char* plan) {
  std::vector<SweepStep> out;
  std::stringstream groups(plan);
  std::string g;
  while (std::getline(groups, g, ',')) {
    size_t lo = 0, hi = 0;
    double f = 0;
    int iters = 0, warmup = -1;
    if (std::sscanf(g.c_str(), "%zu:%zu:%lf:%d:%d", &lo, &hi, &f, &iters, &warmup) != 5 ||
        lo == 0 || hi < lo || f < 1 || iters < 1 || warmup < 0) {
      std::fprintf(stderr, "bad plan group '%s' (expected MIN:MAX:FACTOR:ITERS:WARMUP)\n",
                   g.c_str());
      std::exit(2);
    }
    for (double b = lo; b <= hi + 0.5; b *= f) {
      out.push_back({static_cast<size_t>(b), iters, warmup});
      if (f <= 1) break;
    }
  }
  return out;
}

// Closed form of the sum of v(r,i) = (r+1) + i%5 over n ranks.
inline float expected_sum(int n, size_t i) {
  return n * (n + 1) / 2.0f + n * static_cast<float>(i % 5);
}
inline float input_value(int r, size_t i) {
  return (r + 1) + static_cast<float>(i % 5);
}

// Fresh inputs (`hnprecheck bench --fresh-inputs`): call k's inputs differ
// from every other call's within 1000 calls, and stay exact in float.
inline void fill_inputs(float* in, size_t count, int r, int call) {
  const float c = static_cast<float>(call % 1000);
  for (size_t i = 0; i < count; ++i) in[i] = input_value(r, i) + c;
}
inline long long count_wrong(const float* out, size_t count, int n, int call) {
  const float c = static_cast<float>(n) * static_cast<float>(call % 1000);
  long long wrong = 0;
  for (size_t i = 0; i < count; ++i) wrong += out[i] != expected_sum(n, i) + c;
  return wrong;
}

inline void print_row(size_t bytes, double worst_us, int n, long long wrong) {
  std::printf("%zu %.3f %.4f %lld\n", bytes, worst_us,
              worst_us > 0 ? bytes / (worst_us * 1e3) * 2.0 * (n - 1) / n : 0.0, wrong);
  std::fflush(stdout);
}

// A zeroed, page-aligned float buffer: every tool's buffers start on a page
// (ours are windows or page-aligned heap blocks; a framework aligns tensors
// to 64 bytes at least). A std::vector's large block starts 16 bytes into a
// page, and the kernel's socket copies then run at a fraction of their
// speed (bench/tcp_exchange.sh --offset 16): that would be a handicap of
// the driver, not of the peer.
struct FreeFloats {
  void operator()(float* p) const { std::free(p); }
};
using Floats = std::unique_ptr<float[], FreeFloats>;
inline Floats page_floats(size_t count) {
  const size_t len = (count * sizeof(float) + 4095) / 4096 * 4096 + 4096;
  Floats p(static_cast<float*>(std::aligned_alloc(4096, len)));
  if (!p) {
    std::fprintf(stderr, "out of memory (%zu bytes)\n", len);
    std::exit(1);
  }
  std::memset(p.get(), 0, len);
  return p;
}
