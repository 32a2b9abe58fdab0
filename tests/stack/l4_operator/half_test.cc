#include "stack/l4_operator/half.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

using namespace hn::stack::op;

// GCC's _Float16 conversions are correctly rounded; they are the reference.
TEST_CASE("f16 -> f32 is exact for all 65536 patterns") {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    _Float16 ref;
    std::uint16_t bits = static_cast<std::uint16_t>(h);
    std::memcpy(&ref, &bits, 2);
    float want = static_cast<float>(ref);
    float got = f16_to_f32(bits);
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
    } else {
      INFO("pattern " << h);
      REQUIRE(std::memcmp(&want, &got, 4) == 0);
    }
  }
}

TEST_CASE("f32 -> f16 rounds to nearest even like the compiler, on a fresh sample") {
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<std::uint32_t> any;
  // Every f16 value, the midpoints between neighbours, and random floats.
  std::vector<float> inputs;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    float f = f16_to_f32(static_cast<std::uint16_t>(h));
    inputs.push_back(f);
    inputs.push_back(std::nextafter(f, INFINITY));
    inputs.push_back(std::nextafter(f, -INFINITY));
  }
  for (int i = 0; i < 2000000; ++i) {
    std::uint32_t u = any(rng);
    float f;
    std::memcpy(&f, &u, 4);
    inputs.push_back(f);
  }
  for (float f : {65504.f, 65519.f, 65520.f, 1e-8f, 5.96e-8f, 2.98e-8f, 2.99e-8f, -0.f, INFINITY})
    inputs.push_back(f);
  for (float f : inputs) {
    _Float16 ref = static_cast<_Float16>(f);
    std::uint16_t want;
    std::memcpy(&want, &ref, 2);
    std::uint16_t got = f32_to_f16(f);
    if (std::isnan(f)) {
      REQUIRE((got & 0x7c00) == 0x7c00);
      REQUIRE((got & 0x3ff) != 0);
    } else {
      INFO("input " << f);
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("bf16 conversions round to nearest even and keep NaN") {
  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(bf16_to_f32(0x3f80) == 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  CHECK(f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
  CHECK(f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
  CHECK(bf16_to_f32(f32_to_bf16(INFINITY)) == INFINITY);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    float f = bf16_to_f32(static_cast<std::uint16_t>(h));
    if (!std::isnan(f)) REQUIRE(f32_to_bf16(f) == h);
  }
}
