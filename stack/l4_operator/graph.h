#pragma once
// A small dataflow graph of L4 ops and its executor, which emulates a
// backend: a graph runs only if every node's (op, dtype) is in that backend's
// operator matrix and within its constraints. The check covers the whole
// graph (dtypes and shapes propagated by each kernel's infer()) before any
// kernel runs, so an unsupported op fails the run up front, as a real
// backend's graph compiler would.
//
// Errors:
//   UnsupportedOpError  the matrix rejects a node: same class, code and words
//                       as the `hnprecheck ops` finding (compat::problem_text)
//   GraphError          the graph itself is wrong: unknown value, value
//                       defined twice, wrong input count, shapes that do not fit
//   NoKernelError       the matrix allows an op this layer has no kernel for
// All are thrown before any kernel runs, except data-dependent ShapeErrors
// (an embedding id out of range), which run() reports as GraphError.

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "compat/op_check.h"
#include "compat/op_matrix.h"
#include "stack/l4_operator/registry.h"
#include "stack/l4_operator/tensor.h"

namespace hn::stack::op {

struct Node {
  std::string name;  // shown in errors: "node ffn.gelu"
  std::string op;    // matrix name
  std::vector<std::string> inputs;
  std::string output;
  Attributes attributes;
};

struct Graph {
  std::vector<std::string> inputs;
  std::vector<Node> nodes;  // in execution order
  std::vector<std::string> outputs;
};

class UnsupportedOpError : public std::runtime_error {
 public:
  UnsupportedOpError(compat::OpClass cls, std::map<std::string, std::string> params);
  compat::OpClass op_class() const { return cls_; }
  const char* code() const { return compat::finding_code(cls_); }
  // op, dtype, backend, where, supported, violation, naming, replacement, constraints
  const std::map<std::string, std::string>& params() const { return params_; }

 private:
  compat::OpClass cls_;
  std::map<std::string, std::string> params_;
};

class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NoKernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks every node against the matrix and the registry; returns the spec of
// every value. Throws as above.
std::map<std::string, TensorSpec> validate(const Graph& g,
                                           const std::map<std::string, TensorSpec>& inputs,
                                           const compat::OpMatrix& backend,
                                           const Registry& registry = builtin_registry());

// validate(), then runs the nodes in order. Returns the graph's outputs.
std::map<std::string, Tensor> execute(const Graph& g, const std::map<std::string, Tensor>& inputs,
                                      const compat::OpMatrix& backend,
                                      const Registry& registry = builtin_registry());

}  // namespace hn::stack::op
