#pragma once
// Runs the model's L4 graphs against the emulated backend's operator matrix,
// timing each run as "L4 compute". A model registers every graph it will run
// with representative input specs first; check() validates all of them
// (op::validate: the matrix, the registry, shapes) before the first step, so
// a backend that lacks an operator fails the job up front, with the same
// op::UnsupportedOpError (code and words of `hnprecheck ops`) the executor
// throws, and nothing runs.
//
// GraphBuilder is a small helper for writing graphs: intermediate value
// names are made unique with a counter; outputs get the names they are
// looked up by.

#include <map>
#include <string>
#include <vector>

#include "compat/op_matrix.h"
#include "stack/l2_framework/step_time.h"
#include "stack/l4_operator/graph.h"

namespace hn::stack::framework {

class GraphBuilder {
 public:
  // A graph input; its name is used as given.
  std::string input(const std::string& name);
  // A node; returns the name of its output ("<hint>.<n>").
  std::string op(const std::string& op, std::vector<std::string> inputs,
                 op::Attributes attributes = {}, const std::string& hint = "");
  // A node whose output is a graph output named exactly `name`.
  void output(const std::string& name, const std::string& op, std::vector<std::string> inputs,
              op::Attributes attributes = {});
  op::Graph build() const { return g_; }

 private:
  op::Graph g_;
  int counter_ = 0;
};

class GraphRunner {
 public:
  GraphRunner(const compat::OpMatrix& matrix, StepTimer* timer) : matrix_(matrix), timer_(timer) {}
  void set_timer(StepTimer* t) { timer_ = t; }
  const compat::OpMatrix& matrix() const { return matrix_; }

  // Remembers a graph to be validated by check().
  void declare(const std::string& name, const op::Graph& g,
               std::map<std::string, op::TensorSpec> inputs);
  // Validates every declared graph; throws op::UnsupportedOpError,
  // op::GraphError or op::NoKernelError for the first that fails.
  void check() const;
  std::size_t declared_graphs() const { return declared_.size(); }
  std::size_t declared_nodes() const;

  std::map<std::string, op::Tensor> run(const op::Graph& g,
                                        const std::map<std::string, op::Tensor>& inputs);

 private:
  struct Declared {
    std::string name;
    op::Graph graph;
    std::map<std::string, op::TensorSpec> inputs;
  };
  const compat::OpMatrix& matrix_;
  StepTimer* timer_;
  std::vector<Declared> declared_;
};

}  // namespace hn::stack::framework
