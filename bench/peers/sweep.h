// The sweep both peer drivers share: sizes, iteration counts and the output
// line, so their tables line up with `hnprecheck bench --json`.
//   driver MIN_BYTES MAX_BYTES FACTOR ITERS WARMUP [extra]
// prints, from rank 0, one line per size: "<bytes> <time_us> <busbw_GBps> <wrong>"
// time is the slowest rank's mean over ITERS; busbw = bytes/time * 2(n-1)/n.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

struct Sweep {
  size_t min_bytes, max_bytes;
  double factor;
  int iters, warmup;
};

inline Sweep parse_sweep(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s MIN MAX FACTOR ITERS WARMUP\n", argv[0]);
    std::exit(2);
  }
  return Sweep{std::strtoull(argv[1], nullptr, 10), std::strtoull(argv[2], nullptr, 10),
               std::atof(argv[3]), std::atoi(argv[4]), std::atoi(argv[5])};
}

inline std::vector<size_t> sizes(const Sweep& s) {
  std::vector<size_t> out;
  for (double b = s.min_bytes; b <= s.max_bytes + 0.5; b *= s.factor) {
    out.push_back(static_cast<size_t>(b));
    if (s.factor <= 1) break;
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
