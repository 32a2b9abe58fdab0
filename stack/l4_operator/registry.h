#pragma once
// The operator registry: every CPU kernel L4 has, with the dtypes and the
// limits it implements. The limits use the matrix's constraint type, so the
// reference-cpu matrix (profiles/ops/reference-cpu.yaml) can be checked
// against the registry entry by entry, both ways (matrix_test.cc).
//
// A kernel's infer() computes the output spec from the input specs and
// attributes without touching data, and throws ShapeError when the inputs do
// not fit; run() computes the output. Both are called only after the graph
// executor has checked the (op, dtype) against the emulated backend's matrix.

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "compat/op_matrix.h"
#include "stack/l4_operator/dtype.h"
#include "stack/l4_operator/tensor.h"

namespace hn::stack::op {

using AttrValue = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>>;
using Attributes = std::map<std::string, AttrValue>;
// The attribute as the matrix compares it: "3", "0.5", "tanh", "1,0,2" (the
// same text compat's ONNX reader makes of an ONNX attribute).
std::string attr_text(const AttrValue& v);
// Typed lookups with a default; throw ShapeError naming the attribute when it
// has another type.
std::int64_t attr_int(const Attributes& a, const std::string& name, std::int64_t fallback);
double attr_float(const Attributes& a, const std::string& name, double fallback);
std::string attr_string(const Attributes& a, const std::string& name, const std::string& fallback);
std::vector<std::int64_t> attr_ints(const Attributes& a, const std::string& name,
                                    const std::vector<std::int64_t>& fallback);

// Inputs that do not fit the op (shapes, counts, index range).
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct TensorSpec {
  DType dtype = DType::kF32;
  Shape shape;
};

struct Kernel {
  std::string name;  // the matrix name: matmul, softmax, ...
  std::vector<DType> dtypes;
  compat::OpConstraints limits;  // rank of the first input, attribute values, opset
  int min_inputs = 1, max_inputs = 1;
  std::function<TensorSpec(const std::vector<TensorSpec>&, const Attributes&)> infer;
  std::function<Tensor(const std::vector<const Tensor*>&, const Attributes&)> run;
};

class Registry {
 public:
  // Throws std::logic_error when the name is taken.
  void add(Kernel k);
  const Kernel* find(const std::string& name) const;  // nullptr when absent
  const std::vector<Kernel>& kernels() const { return kernels_; }

 private:
  std::vector<Kernel> kernels_;
};

// Every kernel of this layer, built once.
const Registry& builtin_registry();

// Per-family registration, in kernels_*.cc.
void register_linear_kernels(Registry& r);       // matmul, embedding
void register_layout_kernels(Registry& r);       // transpose, reshape
void register_elementwise_kernels(Registry& r);  // add, mul, gelu, relu
void register_reduction_kernels(Registry& r);    // sum, prod, min, max, avg
void register_norm_kernels(Registry& r);         // softmax, layernorm, cross_entropy
void register_grad_kernels(
    Registry& r);  // *_grad: gelu, softmax, layernorm, cross_entropy, embedding

}  // namespace hn::stack::op
