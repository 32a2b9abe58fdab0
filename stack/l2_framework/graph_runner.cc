#include "stack/l2_framework/graph_runner.h"

namespace hn::stack::framework {

std::string GraphBuilder::input(const std::string& name) {
  g_.inputs.push_back(name);
  return name;
}

std::string GraphBuilder::op(const std::string& op, std::vector<std::string> inputs,
                             op::Attributes attributes, const std::string& hint) {
  op::Node n;
  n.op = op;
  n.output = (hint.empty() ? op : hint) + "." + std::to_string(counter_++);
  n.name = n.output;
  n.inputs = std::move(inputs);
  n.attributes = std::move(attributes);
  g_.nodes.push_back(std::move(n));
  return g_.nodes.back().output;
}

void GraphBuilder::output(const std::string& name, const std::string& op,
                          std::vector<std::string> inputs, op::Attributes attributes) {
  op::Node n;
  n.op = op;
  n.name = n.output = name;
  n.inputs = std::move(inputs);
  n.attributes = std::move(attributes);
  g_.nodes.push_back(std::move(n));
  g_.outputs.push_back(name);
}

void GraphRunner::declare(const std::string& name, const op::Graph& g,
                          std::map<std::string, op::TensorSpec> inputs) {
  declared_.push_back({name, g, std::move(inputs)});
}

void GraphRunner::check() const {
  for (const auto& d : declared_) {
    try {
      op::validate(d.graph, d.inputs, matrix_);
    } catch (const op::UnsupportedOpError& e) {
      auto params = e.params();
      params["where"] = "graph " + d.name + ", " + params["where"];
      throw op::UnsupportedOpError(e.op_class(), std::move(params));
    } catch (const op::GraphError& e) {
      throw op::GraphError("graph " + d.name + ": " + e.what());
    }
  }
}

std::size_t GraphRunner::declared_nodes() const {
  std::size_t n = 0;
  for (const auto& d : declared_) n += d.graph.nodes.size();
  return n;
}

std::map<std::string, op::Tensor> GraphRunner::run(
    const op::Graph& g, const std::map<std::string, op::Tensor>& inputs) {
  auto t = StepTimer::time(timer_, "L4", "compute");
  return op::execute(g, inputs, matrix_);
}

}  // namespace hn::stack::framework
