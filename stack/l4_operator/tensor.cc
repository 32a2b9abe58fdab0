#include "stack/l4_operator/tensor.h"

#include "stack/l4_operator/element.h"

#include <cassert>
#include <cstring>
#include <stdexcept>

#include "stack/l4_operator/half.h"

namespace hn::stack::op {

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) throw std::invalid_argument("negative dimension in shape " + to_string(shape));
    n *= d;
  }
  return n;
}

std::string to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool is_float(DType t) {
  return t != DType::kI32 && t != DType::kI64;
}

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)), numel_(element_count(shape_)) {
  bytes_.resize(static_cast<std::size_t>(numel_) * dtype_size(dtype_));
}

Tensor Tensor::from_values(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t(dtype, std::move(shape));
  if (static_cast<std::int64_t>(values.size()) != t.numel())
    throw std::invalid_argument("from_values: " + std::to_string(values.size()) +
                                " values for shape " + to_string(t.shape()));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, values[static_cast<std::size_t>(i)]);
  return t;
}

double Tensor::get(std::int64_t i) const {
  assert(i >= 0 && i < numel_);
  return load_element(dtype_, bytes_.data(), static_cast<std::size_t>(i));
}

void Tensor::set(std::int64_t i, double v) {
  assert(i >= 0 && i < numel_);
  store_element(dtype_, bytes_.data(), static_cast<std::size_t>(i), v);
}

std::vector<double> Tensor::to_f64() const {
  std::vector<double> out(static_cast<std::size_t>(numel_));
  for (std::int64_t i = 0; i < numel_; ++i) out[static_cast<std::size_t>(i)] = get(i);
  return out;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (element_count(shape) != numel_)
    throw std::invalid_argument("cannot reshape " + to_string(shape_) + " to " + to_string(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

template <typename C>
std::vector<C> load(const Tensor& t) {
  std::vector<C> out(static_cast<std::size_t>(t.numel()));
  const std::size_t n = out.size();
  switch (t.dtype()) {
    case DType::kF32: {
      const float* p = static_cast<const float*>(t.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<C>(p[i]);
      break;
    }
    case DType::kF64: {
      const double* p = static_cast<const double*>(t.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<C>(p[i]);
      break;
    }
    case DType::kF16: {
      const std::uint16_t* p = static_cast<const std::uint16_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<C>(f16_to_f32(p[i]));
      break;
    }
    case DType::kBF16: {
      const std::uint16_t* p = static_cast<const std::uint16_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<C>(bf16_to_f32(p[i]));
      break;
    }
    case DType::kI32: {
      const std::int32_t* p = static_cast<const std::int32_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<C>(p[i]);
      break;
    }
    case DType::kI64: {
      const std::int64_t* p = static_cast<const std::int64_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<C>(p[i]);
      break;
    }
  }
  return out;
}

template <typename C>
void store(Tensor& t, const std::vector<C>& v) {
  if (static_cast<std::int64_t>(v.size()) != t.numel())
    throw std::logic_error("store: size mismatch for shape " + to_string(t.shape()));
  const std::size_t n = v.size();
  switch (t.dtype()) {
    case DType::kF32: {
      float* p = static_cast<float*>(t.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<float>(v[i]);
      break;
    }
    case DType::kF64: {
      double* p = static_cast<double*>(t.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<double>(v[i]);
      break;
    }
    case DType::kF16: {
      std::uint16_t* p = static_cast<std::uint16_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = f32_to_f16(static_cast<float>(v[i]));
      break;
    }
    case DType::kBF16: {
      std::uint16_t* p = static_cast<std::uint16_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = f32_to_bf16(static_cast<float>(v[i]));
      break;
    }
    case DType::kI32: {
      std::int32_t* p = static_cast<std::int32_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::int32_t>(v[i]);
      break;
    }
    case DType::kI64: {
      std::int64_t* p = static_cast<std::int64_t*>(t.data());
      for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::int64_t>(v[i]);
      break;
    }
  }
}

template std::vector<float> load<float>(const Tensor&);
template std::vector<double> load<double>(const Tensor&);
template void store<float>(Tensor&, const std::vector<float>&);
template void store<double>(Tensor&, const std::vector<double>&);

}  // namespace hn::stack::op
