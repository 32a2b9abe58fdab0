#include "stack/l2_framework/parameter.h"

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace hn::stack::framework {

void Parameter::zero_grad() {
  grad = op::Tensor(value.dtype(), value.shape());
}

std::size_t Parameter::bytes() const {
  return static_cast<std::size_t>(value.numel()) * op::dtype_size(value.dtype());
}

namespace {

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

// Bytes of one block: the tensor seen as [outer, dims[dim], inner].
struct Blocking {
  std::size_t outer = 1, rows = 1, inner = 1;
};
Blocking blocking(const op::Shape& s, int dim) {
  Blocking b;
  for (int i = 0; i < static_cast<int>(s.size()); ++i) {
    const auto d = static_cast<std::size_t>(s[static_cast<std::size_t>(i)]);
    if (i < dim)
      b.outer *= d;
    else if (i == dim)
      b.rows = d;
    else
      b.inner *= d;
  }
  return b;
}

}  // namespace

op::Tensor init_normal(std::uint64_t seed, const std::string& name, const op::Shape& shape,
                       double stddev, op::DType dtype) {
  // mt19937_64 is specified bit for bit; the normal deviates are our own
  // Box-Muller, so the values do not depend on the standard library.
  std::mt19937_64 rng(fnv1a(name.data(), name.size(), seed * 0x9E3779B97F4A7C15ull + 1));
  auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  op::Tensor t(dtype, shape);
  for (std::int64_t i = 0; i < t.numel(); i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform())), a = 2 * M_PI * uniform();
    t.set(i, stddev * r * std::cos(a));
    if (i + 1 < t.numel()) t.set(i + 1, stddev * r * std::sin(a));
  }
  return t;
}

op::Tensor init_constant(const op::Shape& shape, double value, op::DType dtype) {
  op::Tensor t(dtype, shape);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, value);
  return t;
}

op::Tensor shard(const op::Tensor& full, int dim, int parts, int index) {
  const op::Shape& s = full.shape();
  if (dim < 0 || dim >= full.rank() || parts < 1 || s[static_cast<std::size_t>(dim)] % parts != 0 ||
      index < 0 || index >= parts)
    throw std::invalid_argument("shard: dim " + std::to_string(dim) + " of " + op::to_string(s) +
                                " does not split into " + std::to_string(parts) + " blocks");
  op::Shape out_shape = s;
  out_shape[static_cast<std::size_t>(dim)] /= parts;
  op::Tensor out(full.dtype(), out_shape);
  const Blocking b = blocking(s, dim);
  const std::size_t es = op::dtype_size(full.dtype()),
                    rows = b.rows / static_cast<std::size_t>(parts);
  const auto* src = static_cast<const std::byte*>(full.data());
  auto* dst = static_cast<std::byte*>(out.data());
  const std::size_t chunk = rows * b.inner * es;
  for (std::size_t o = 0; o < b.outer; ++o)
    std::memcpy(dst + o * chunk,
                src + (o * b.rows + static_cast<std::size_t>(index) * rows) * b.inner * es, chunk);
  return out;
}

op::Tensor concat(const std::vector<op::Tensor>& blocks, int dim) {
  if (blocks.empty()) throw std::invalid_argument("concat: no blocks");
  op::Shape shape = blocks[0].shape();
  std::int64_t total = 0;
  for (const auto& b : blocks) total += b.shape().at(static_cast<std::size_t>(dim));
  shape[static_cast<std::size_t>(dim)] = total;
  op::Tensor out(blocks[0].dtype(), shape);
  const Blocking whole = blocking(shape, dim);
  const std::size_t es = op::dtype_size(out.dtype());
  auto* dst = static_cast<std::byte*>(out.data());
  std::size_t row0 = 0;
  for (const auto& b : blocks) {
    const Blocking part = blocking(b.shape(), dim);
    const auto* src = static_cast<const std::byte*>(b.data());
    const std::size_t chunk = part.rows * part.inner * es;
    for (std::size_t o = 0; o < part.outer; ++o)
      std::memcpy(dst + (o * whole.rows + row0) * whole.inner * es, src + o * chunk, chunk);
    row0 += part.rows;
  }
  return out;
}

std::uint64_t checksum(const std::vector<const Parameter*>& params) {
  std::uint64_t h = 1469598103934665603ull;
  for (const Parameter* p : params) h = fnv1a(p->value.data(), p->bytes(), h);
  return h;
}

}  // namespace hn::stack::framework
