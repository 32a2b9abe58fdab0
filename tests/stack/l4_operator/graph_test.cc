// The executor emulates a backend: a graph runs only if the backend's matrix
// allows every node, and otherwise fails before any kernel runs with the
// class, code and words of the `ops` finding.
#include <catch2/catch.hpp>

#include "compat/builtin_ops.h"
#include "stack/l4_operator/graph.h"

using namespace hn::stack::op;
using hn::compat::OpClass;

namespace {

// A feed-forward block: layernorm -> matmul -> gelu -> matmul -> add (residual).
Graph ffn() {
  Graph g;
  g.inputs = {"x", "gamma", "w1", "w2"};
  g.nodes = {{"ln", "layernorm", {"x", "gamma"}, "h0", {}},
             {"fc1", "matmul", {"h0", "w1"}, "h1", {}},
             {"act", "gelu", {"h1"}, "h2", {}},
             {"fc2", "matmul", {"h2", "w2"}, "h3", {}},
             {"res", "add", {"x", "h3"}, "y", {}}};
  g.outputs = {"y"};
  return g;
}

std::map<std::string, Tensor> ffn_inputs(DType t) {
  std::vector<double> ones(8, 1.0);
  auto filled = [](DType dt, Shape s, double v) {
    return Tensor::from_values(dt, s,
                               std::vector<double>(static_cast<std::size_t>(element_count(s)), v));
  };
  return {{"x", filled(t, {2, 8}, 0.5)},
          {"gamma", filled(t, {8}, 1.0)},
          {"w1", filled(t, {8, 16}, 0.125)},
          {"w2", filled(t, {16, 8}, 0.0625)}};
}

}  // namespace

TEST_CASE("graph: runs on reference-cpu and gives the closed-form result") {
  const auto& cpu = hn::compat::builtin_matrix("reference-cpu");
  for (DType t : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
    auto out = execute(ffn(), ffn_inputs(t), cpu);
    // Every row of x is constant, so layernorm gives 0, matmul 0, gelu(0) = 0:
    // y = x exactly.
    REQUIRE(out.at("y").shape() == Shape{2, 8});
    for (std::int64_t i = 0; i < 16; ++i) CHECK(out.at("y").get(i) == 0.5);
  }
}

TEST_CASE("graph: an op outside the backend's matrix fails before running, as the finding says") {
  auto npu = hn::compat::builtin_matrix("example-npu");
  SECTION("unsupported dtype: example-npu has no f64") {
    try {
      execute(ffn(), ffn_inputs(DType::kF64), npu);
      FAIL("expected UnsupportedOpError");
    } catch (const UnsupportedOpError& e) {
      CHECK(e.op_class() == OpClass::kUnsupportedDtype);
      CHECK(std::string(e.code()) == "OP-UNSUPPORTED-DTYPE");
      CHECK(std::string(e.what()) ==
            "layernorm does not support dtype f64 on example-npu (supported: f16, bf16, f32); node "
            "ln");
    }
  }
  SECTION("unsupported operator type") {
    npu.entries.erase(std::remove_if(npu.entries.begin(), npu.entries.end(),
                                     [](const auto& e) { return e.name == "gelu"; }),
                      npu.entries.end());
    try {
      execute(ffn(), ffn_inputs(DType::kF32), npu);
      FAIL("expected UnsupportedOpError");
    } catch (const UnsupportedOpError& e) {
      CHECK(e.op_class() == OpClass::kUnsupportedOp);
      CHECK(std::string(e.code()) == "OP-UNSUPPORTED-TYPE");
      CHECK(std::string(e.what()) == "unsupported operator type gelu on example-npu; node act");
    }
  }
}

TEST_CASE("graph: constraint violations and missing kernels are caught up front") {
  const auto& cpu = hn::compat::builtin_matrix("reference-cpu");
  Graph g;
  g.inputs = {"x"};
  g.nodes = {{"sm", "softmax", {"x"}, "y", {{"axis", std::int64_t{0}}}}};
  g.outputs = {"y"};
  std::map<std::string, Tensor> in = {{"x", Tensor(DType::kF32, {2, 3})}};
  try {
    execute(g, in, cpu);
    FAIL("expected UnsupportedOpError");
  } catch (const UnsupportedOpError& e) {
    CHECK(std::string(e.code()) == "OP-CONSTRAINT");
    CHECK(std::string(e.what()) ==
          "softmax (f32) is outside reference-cpu's constraints: axis=0 not in {-1}; node sm");
  }
  // example-gpu allows conv; L4 has no kernel for it.
  Graph c;
  c.inputs = {"x"};
  c.nodes = {{"conv0", "conv", {"x"}, "y", {}}};
  c.outputs = {"y"};
  CHECK_THROWS_AS(execute(c, {{"x", Tensor(DType::kF32, {1, 1, 4, 4})}},
                          hn::compat::builtin_matrix("example-gpu")),
                  NoKernelError);
}

TEST_CASE("graph: structural errors name the node") {
  const auto& cpu = hn::compat::builtin_matrix("reference-cpu");
  Graph g;
  g.inputs = {"a", "b"};
  g.nodes = {{"mm", "matmul", {"a", "b"}, "c", {}}};
  g.outputs = {"c"};
  std::map<std::string, Tensor> bad = {{"a", Tensor(DType::kF32, {2, 3})},
                                       {"b", Tensor(DType::kF32, {4, 5})}};
  CHECK_THROWS_WITH(execute(g, bad, cpu), Catch::Contains("node mm: matmul: inner dims differ"));
  g.nodes[0].inputs = {"a", "nope"};
  CHECK_THROWS_WITH(validate(g, {{"a", {DType::kF32, {2, 3}}}, {"b", {DType::kF32, {3, 2}}}}, cpu),
                    Catch::Contains("input 'nope' is not defined"));
  CHECK_THROWS_AS(validate(g, {}, cpu), GraphError);
}
