#pragma once
// A dense, row-major tensor that owns its bytes: the values the L4 kernels
// read and write. Elements are stored in the dtype's own layout (f16/bf16 as
// 16-bit patterns, see half.h). get()/set() convert one element through
// double, for tests and the float64 reference implementations; kernels use
// load()/store(), which convert a whole tensor to the compute type once.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stack/l4_operator/dtype.h"

namespace hn::stack::op {

using Shape = std::vector<std::int64_t>;

// Product of the dims (1 for a scalar). Throws std::invalid_argument for a
// negative dim.
std::int64_t element_count(const Shape& shape);
std::string to_string(const Shape& shape);  // "[2, 3]"

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled.
  Tensor(DType dtype, Shape shape);
  static Tensor from_values(DType dtype, Shape shape, const std::vector<double>& values);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t numel() const { return numel_; }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }

  // Element i (flat index) as double; set() rounds to the dtype (integers
  // truncate toward zero). No bounds check beyond debug asserts.
  double get(std::int64_t i) const;
  void set(std::int64_t i, double v);
  std::vector<double> to_f64() const;

  // Same bytes, new shape of the same element count (std::invalid_argument
  // otherwise).
  Tensor reshaped(Shape shape) const;

 private:
  DType dtype_ = DType::kF32;
  Shape shape_;
  std::int64_t numel_ = 1;
  std::vector<std::byte> bytes_;
};

// The kernels' compute types: f64 computes in double, f32, f16 and bf16 in
// float (so half types accumulate in f32 and round once, in store()).
template <typename C>
std::vector<C> load(const Tensor& t);
template <typename C>
void store(Tensor& t, const std::vector<C>& values);

bool is_float(DType t);

}  // namespace hn::stack::op
