#pragma once
// IEEE binary16 and bfloat16 <-> float, branch-free so loops over arrays
// auto-vectorise. Rounding is round-to-nearest-even; NaN stays NaN (quiet),
// infinities and signed zeros are preserved; f16 subnormals are handled.

#include <bit>
#include <cstdint>

namespace hn::stack::op {

inline float bf16_to_f32(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t(h) << 16);
}

inline std::uint16_t f32_to_bf16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  std::uint32_t is_nan = ((u & 0x7fffffffu) > 0x7f800000u);
  std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  std::uint32_t nan = (u >> 16) | 0x40u;
  return static_cast<std::uint16_t>(is_nan ? nan : rounded);
}

inline float f16_to_f32(std::uint16_t h) {
  // Scale trick: shift exponent/mantissa into float position, multiply by
  // 2^112 to re-bias; handles subnormals exactly. Inf/NaN fixed separately.
  std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t em = h & 0x7fffu;
  float mag = std::bit_cast<float>(em << 13) * 0x1p112f;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(mag);
  bits = em >= 0x7c00u ? (0x7f800000u | (std::uint32_t(em & 0x3ffu) << 13)) : bits;
  return std::bit_cast<float>(bits | sign);
}

inline std::uint16_t f32_to_f16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (u >> 16) & 0x8000u;
  std::uint32_t a = u & 0x7fffffffu;
  // Normal range: re-bias by multiplying with 2^-112, then round mantissa.
  float scaled = std::bit_cast<float>(a) * 0x1p-112f;
  std::uint32_t s = std::bit_cast<std::uint32_t>(scaled);
  std::uint32_t normal = (s + 0x0fffu + ((s >> 13) & 1u)) >> 13;
  // Subnormal f16 results: add a magic number so the FPU rounds for us.
  float sub = std::bit_cast<float>(a) + 0.5f;
  std::uint32_t subnormal = std::bit_cast<std::uint32_t>(sub) - 0x3f000000u;
  std::uint32_t h = a < 0x38800000u ? subnormal : normal;
  h = a >= 0x477ff000u ? 0x7c00u : h;                          // overflow -> inf
  h = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x3ffu)) : h;  // NaN stays NaN
  return static_cast<std::uint16_t>(h | sign);
}

}  // namespace hn::stack::op
