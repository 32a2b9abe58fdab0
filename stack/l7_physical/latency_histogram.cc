#include "stack/l7_physical/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace hn::stack::physical {

namespace {
constexpr int kSubBits = 7;  // 128 buckets per power of two
constexpr std::uint64_t kSub = 1ull << kSubBits;
constexpr std::uint64_t kExact = 2 * kSub;  // 0..255 are exact
constexpr std::size_t kBuckets = kExact + (63 - kSubBits) * kSub;
}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

std::size_t LatencyHistogram::bucket_of(std::uint64_t v) {
  if (v < kExact) return static_cast<std::size_t>(v);
  int msb = 63 - std::countl_zero(v);  // >= 8
  int shift = msb - kSubBits;          // >= 1
  return kExact + static_cast<std::size_t>(msb - kSubBits - 1) * kSub +
         static_cast<std::size_t>((v >> shift) - kSub);
}

std::uint64_t LatencyHistogram::bucket_low(std::size_t i) {
  if (i < kExact) return i;
  std::size_t group = (i - kExact) / kSub;  // 0 for [256, 512)
  std::uint64_t sub = (i - kExact) % kSub;
  int shift = static_cast<int>(group) + 1;
  return (kSub + sub) << shift;
}

std::uint64_t LatencyHistogram::bucket_width(std::size_t i) {
  if (i < kExact) return 1;
  return 1ull << ((i - kExact) / kSub + 1);
}

void LatencyHistogram::record(std::uint64_t ns) {
  ++counts_[bucket_of(ns)];
  ++count_;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
  sum_ += ns;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
  count_ += o.count_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
}

std::uint64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // p/100*n in floating point: 99.9/100*1000 is 999.0000000000001, whose
  // ceiling would skip a rank; shave the rounding error off first.
  double exact = p / 100.0 * static_cast<double>(count_);
  auto rank = static_cast<std::uint64_t>(std::ceil(exact - exact * 1e-12));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  if (rank == count_) return max_;  // the largest sample is known exactly
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      std::uint64_t mid = bucket_low(i) + (bucket_width(i) - 1) / 2;
      return std::clamp(mid, min(), max_);
    }
  }
  return max_;
}

std::string LatencyHistogram::encode() const {
  std::ostringstream os;
  os << "h1 " << count_ << ' ' << min() << ' ' << max_ << ' '
     << static_cast<std::uint64_t>(sum_ >> 64) << ' ' << static_cast<std::uint64_t>(sum_);
  for (std::size_t i = 0; i < kBuckets; ++i)
    if (counts_[i]) os << ' ' << i << ':' << counts_[i];
  return os.str();
}

LatencyHistogram LatencyHistogram::decode(std::string_view text) {
  auto bad = [&](const std::string& why) -> std::invalid_argument {
    return std::invalid_argument("latency histogram: " + why);
  };
  std::istringstream in{std::string(text)};
  std::string tag;
  std::uint64_t count = 0, mn = 0, mx = 0, hi = 0, lo = 0;
  if (!(in >> tag) || tag != "h1") throw bad("not an encoded histogram (expected 'h1 ...')");
  if (!(in >> count >> mn >> mx >> hi >> lo)) throw bad("the header is incomplete");
  LatencyHistogram h;
  std::uint64_t total = 0;
  for (std::string item; in >> item;) {
    auto colon = item.find(':');
    if (colon == std::string::npos) throw bad("bucket '" + item + "' has no ':'");
    std::size_t idx = 0;
    std::uint64_t n = 0;
    try {
      idx = std::stoull(item.substr(0, colon));
      n = std::stoull(item.substr(colon + 1));
    } catch (const std::exception&) {
      throw bad("bucket '" + item + "' is not index:count");
    }
    if (idx >= kBuckets) throw bad("bucket index " + std::to_string(idx) + " is out of range");
    h.counts_[idx] += n;
    total += n;
  }
  if (total != count)
    throw bad("the buckets hold " + std::to_string(total) +
              " samples, the "
              "header says " +
              std::to_string(count));
  h.count_ = count;
  h.min_ = count ? mn : UINT64_MAX;
  h.max_ = mx;
  h.sum_ = (static_cast<unsigned __int128>(hi) << 64) | lo;
  return h;
}

}  // namespace hn::stack::physical
