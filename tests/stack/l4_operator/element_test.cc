// load_element / store_element: every dtype, rounding on store, unaligned
// buffers.

#include "stack/l4_operator/element.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace hn::stack::op;

TEST_CASE("element: values that every dtype holds exactly round-trip") {
  for (DType t : kAllDTypes) {
    CAPTURE(to_string(t));
    std::vector<std::byte> buf(8 * dtype_size(t));
    const double values[] = {0, 1, -2, 7, 64, -100, 255, 1024};
    for (std::size_t i = 0; i < 8; ++i) store_element(t, buf.data(), i, values[i]);
    for (std::size_t i = 0; i < 8; ++i) CHECK(load_element(t, buf.data(), i) == values[i]);
  }
}

TEST_CASE("element: storing rounds to the dtype") {
  std::byte buf[8];
  store_element(DType::kI32, buf, 0, -2.9);
  CHECK(load_element(DType::kI32, buf, 0) == -2);  // toward zero
  store_element(DType::kF16, buf, 0, 1.0 + 1.0 / 4096);
  CHECK(load_element(DType::kF16, buf, 0) == 1.0);  // below half an f16 ulp (2^-10)
  store_element(DType::kBF16, buf, 0, 1.0 + 1.0 / 64);
  CHECK(load_element(DType::kBF16, buf, 0) == 1.015625);  // bf16 keeps 7 bits: 1 + 2^-6 exactly
  store_element(DType::kF32, buf, 0, 0.1);
  CHECK(load_element(DType::kF32, buf, 0) == static_cast<double>(0.1f));
  store_element(DType::kI32, buf, 0, 1e12);
  CHECK(load_element(DType::kI32, buf, 0) == 2147483647.0);  // saturates
  store_element(DType::kI32, buf, 0, -1e12);
  CHECK(load_element(DType::kI32, buf, 0) == -2147483648.0);
  store_element(DType::kI64, buf, 0, std::nan(""));
  CHECK(load_element(DType::kI64, buf, 0) == 0);
  store_element(DType::kI64, buf, 0, 9007199254740992.0);  // 2^53
  CHECK(load_element(DType::kI64, buf, 0) == 9007199254740992.0);
}

TEST_CASE("element: buffers need not be aligned") {
  for (DType t : kAllDTypes) {
    CAPTURE(to_string(t));
    std::vector<std::byte> raw(1 + 4 * dtype_size(t));
    void* odd = raw.data() + 1;
    for (std::size_t i = 0; i < 4; ++i) store_element(t, odd, i, static_cast<double>(i) - 1);
    for (std::size_t i = 0; i < 4; ++i)
      CHECK(load_element(t, odd, i) == static_cast<double>(i) - 1);
  }
}
