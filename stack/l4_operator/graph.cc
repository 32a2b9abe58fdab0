#include "stack/l4_operator/graph.h"

#include "compat/join.h"

namespace hn::stack::op {

UnsupportedOpError::UnsupportedOpError(compat::OpClass cls,
                                       std::map<std::string, std::string> params)
    : std::runtime_error(compat::problem_text(cls, params)),
      cls_(cls),
      params_(std::move(params)) {}

namespace {

// The node as the matrix check sees it: the dtype and rank of its first input.
void check_against_matrix(const Node& n, const std::vector<TensorSpec>& in,
                          const compat::OpMatrix& m) {
  compat::OpOccurrence o;
  o.naming = compat::OpNaming::kMatrix;
  o.op = n.op;
  o.where = "node " + n.name;
  if (!in.empty()) {
    o.dtype = std::string(to_string(in[0].dtype));
    o.rank = static_cast<int>(in[0].shape.size());
  }
  for (const auto& [k, v] : n.attributes) o.attributes[k] = attr_text(v);
  compat::OpVerdict v = compat::check_occurrence(m, n.op, o);
  if (v.cls == compat::OpClass::kSupported) return;
  const compat::OpMatrixEntry* e = m.find(n.op);
  std::map<std::string, std::string> params = {
      {"op", n.op},
      {"dtype", o.dtype.empty() ? "dtype unknown" : o.dtype},
      {"backend", m.backend},
      {"where", o.where},
      {"supported", e && !e->dtypes.empty() ? compat::join(e->dtypes, ", ") : "none"},
      {"violation", v.violation},
      {"naming", "matrix"},
      {"replacement", e && !e->replacement.empty() ? e->replacement : m.default_replacement},
      {"constraints",
       e && !e->constraints.empty() ? compat::describe(e->constraints) : "its constraints"},
  };
  throw UnsupportedOpError(v.cls, std::move(params));
}

}  // namespace

std::map<std::string, TensorSpec> validate(const Graph& g,
                                           const std::map<std::string, TensorSpec>& inputs,
                                           const compat::OpMatrix& backend,
                                           const Registry& registry) {
  std::map<std::string, TensorSpec> specs;
  for (const auto& name : g.inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw GraphError("graph input '" + name + "' was not given");
    specs[name] = it->second;
  }
  for (const auto& n : g.nodes) {
    std::vector<TensorSpec> in;
    for (const auto& v : n.inputs) {
      auto it = specs.find(v);
      if (it == specs.end())
        throw GraphError("node " + n.name + ": input '" + v + "' is not defined before it");
      in.push_back(it->second);
    }
    check_against_matrix(n, in, backend);
    const Kernel* k = registry.find(n.op);
    if (!k)
      throw NoKernelError("node " + n.name + ": " + backend.backend + "'s matrix allows " + n.op +
                          " but L4 has no CPU kernel for it");
    if (static_cast<int>(in.size()) < k->min_inputs || static_cast<int>(in.size()) > k->max_inputs)
      throw GraphError(
          "node " + n.name + ": " + n.op + " takes " + std::to_string(k->min_inputs) +
          (k->max_inputs != k->min_inputs ? ".." + std::to_string(k->max_inputs) : "") +
          " inputs, got " + std::to_string(in.size()));
    if (specs.count(n.output))
      throw GraphError("node " + n.name + ": value '" + n.output + "' defined twice");
    try {
      specs[n.output] = k->infer(in, n.attributes);
    } catch (const ShapeError& e) {
      throw GraphError("node " + n.name + ": " + e.what());
    }
  }
  for (const auto& o : g.outputs)
    if (!specs.count(o)) throw GraphError("graph output '" + o + "' is not produced");
  return specs;
}

std::map<std::string, Tensor> execute(const Graph& g, const std::map<std::string, Tensor>& inputs,
                                      const compat::OpMatrix& backend, const Registry& registry) {
  std::map<std::string, TensorSpec> in_specs;
  for (const auto& [name, t] : inputs) in_specs[name] = {t.dtype(), t.shape()};
  validate(g, in_specs, backend, registry);
  std::map<std::string, Tensor> values;
  for (const auto& name : g.inputs) values[name] = inputs.at(name);
  for (const auto& n : g.nodes) {
    std::vector<const Tensor*> in;
    for (const auto& v : n.inputs) in.push_back(&values.at(v));
    try {
      values[n.output] = registry.find(n.op)->run(in, n.attributes);
    } catch (const ShapeError& e) {
      throw GraphError("node " + n.name + ": " + e.what());
    }
  }
  std::map<std::string, Tensor> out;
  for (const auto& o : g.outputs) out[o] = values.at(o);
  return out;
}

}  // namespace hn::stack::op
