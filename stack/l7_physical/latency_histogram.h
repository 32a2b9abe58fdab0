#pragma once
// A log-linear (HDR-style) histogram of latencies in nanoseconds.
//
// Values below 256 ns are counted exactly. Above that, every power-of-two
// range [2^k, 2^(k+1)) is split into 128 equal buckets, so a bucket is at most
// 1/128 of its lower bound wide and the bucket midpoint that percentile()
// reports is within 1/256 (0.4 %) of every value counted in it. Memory is
// fixed (about 60 KB), record() is O(1), and histograms of several threads
// merge exactly by adding counts.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hn::stack::physical {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void record(std::uint64_t ns);
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }

  // The p-th percentile (0 < p <= 100): the value of the sample of rank
  // ceil(p/100 * count), as its bucket midpoint clamped to [min, max], so
  // percentile(100) == max() exactly. 0 when empty.
  std::uint64_t percentile(double p) const;

  // A compact text form (the non-empty buckets), so histograms of several
  // hosts can travel in a report and merge exactly on the other side:
  // "h1 <count> <min> <max> <sum_hi> <sum_lo> <bucket>:<n> ...". decode()
  // throws std::invalid_argument naming what is wrong.
  std::string encode() const;
  static LatencyHistogram decode(std::string_view text);

  // Upper bound of |percentile - true sample value| / true sample value.
  static constexpr double kMaxRelativeError = 1.0 / 256;

  // Bucket arithmetic, exposed for the tests.
  static std::size_t bucket_of(std::uint64_t ns);
  static std::uint64_t bucket_low(std::size_t index);
  static std::uint64_t bucket_width(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0, min_ = UINT64_MAX, max_ = 0;
  unsigned __int128 sum_ = 0;
};

}  // namespace hn::stack::physical
