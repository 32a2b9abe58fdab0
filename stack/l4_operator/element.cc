#include "stack/l4_operator/element.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "stack/l4_operator/half.h"

namespace hn::stack::op {

namespace {
template <typename T>
T read(const void* buf, std::size_t i) {
  T v;
  std::memcpy(&v, static_cast<const std::byte*>(buf) + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void write(void* buf, std::size_t i, T v) {
  std::memcpy(static_cast<std::byte*>(buf) + i * sizeof(T), &v, sizeof(T));
}
}  // namespace

double load_element(DType t, const void* buf, std::size_t i) {
  switch (t) {
    case DType::kF32:
      return read<float>(buf, i);
    case DType::kF64:
      return read<double>(buf, i);
    case DType::kF16:
      return f16_to_f32(read<std::uint16_t>(buf, i));
    case DType::kBF16:
      return bf16_to_f32(read<std::uint16_t>(buf, i));
    case DType::kI32:
      return read<std::int32_t>(buf, i);
    case DType::kI64:
      return static_cast<double>(read<std::int64_t>(buf, i));
  }
  return 0;
}

namespace {
// double -> integer without undefined behaviour: NaN is 0, out-of-range
// values saturate, the rest truncate toward zero.
template <typename I>
I to_int(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}
}  // namespace

void store_element(DType t, void* buf, std::size_t i, double v) {
  switch (t) {
    case DType::kF32:
      return write(buf, i, static_cast<float>(v));
    case DType::kF64:
      return write(buf, i, v);
    case DType::kF16:
      return write(buf, i, f32_to_f16(static_cast<float>(v)));
    case DType::kBF16:
      return write(buf, i, f32_to_bf16(static_cast<float>(v)));
    case DType::kI32:
      return write(buf, i, to_int<std::int32_t>(v));
    case DType::kI64:
      return write(buf, i, to_int<std::int64_t>(v));
  }
}

}  // namespace hn::stack::op
