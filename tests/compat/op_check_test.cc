// Classification of (op, dtype) pairs against a matrix.
#include <catch2/catch.hpp>

#include "compat/op_check.h"
#include "compat/op_list_reader.h"

using namespace hn::compat;

namespace {
const char* kMatrix = R"(version: 1
backend: test
default_replacement: write it yourself
ops:
  matmul: {dtypes: [f32, bf16], constraints: {rank: {min: 2}}, replacement: use mm}
  softmax: {dtypes: [f32], constraints: {opset: {min: 13}, attributes: {axis: ["-1"]}}}
  conv: {dtypes: [], replacement: im2col and matmul}
)";
}  // namespace

TEST_CASE("check: one result per (op, dtype) pair, classed, worst occurrence wins") {
  OpMatrix m = parse_op_matrix(kMatrix, "m.yaml");
  OpMapping map = parse_op_mapping(
      "version: 1\nonnx: {MatMul: matmul, Softmax: softmax, Conv: conv}\n"
      "aten: {'aten::mm': matmul}\n",
      "map.yaml");
  auto inv = read_op_list_yaml(R"(ops:
  - {op: MatMul, dtype: f32, rank: 2}
  - {op: MatMul, dtype: f32, rank: 1}
  - {op: MatMul, dtype: f64}
  - {op: 'aten::mm', dtype: bf16, count: 7}
  - {op: Softmax, dtype: f32, opset: 11}
  - {op: Conv, dtype: f32}
  - {op: Relu, dtype: f32}
  - {op: 'aten::flash', dtype: f16}
  - {op: matmul}
)",
                               "inv.yaml");
  auto r = check_inventory(m, map, inv);
  REQUIRE(r.pairs.size() == 8);
  auto at = [&](std::size_t i) {
    return std::pair(r.pairs[i].op + " " + r.pairs[i].dtype, r.pairs[i].cls);
  };
  CHECK(at(0) == std::pair(std::string("MatMul f32"), OpClass::kConstraintViolated));
  CHECK(r.pairs[0].violations == std::vector<std::string>{"rank 1 below min 2"});
  CHECK(r.pairs[0].where == std::vector<std::string>{"inv.yaml:2", "inv.yaml:3"});
  CHECK(r.pairs[0].occurrences == 2);
  CHECK(at(1) == std::pair(std::string("MatMul f64"), OpClass::kUnsupportedDtype));
  CHECK(at(2) == std::pair(std::string("aten::mm bf16"), OpClass::kSupported));
  CHECK(r.pairs[2].occurrences == 7);
  CHECK(at(3) == std::pair(std::string("Softmax f32"), OpClass::kConstraintViolated));
  CHECK(r.pairs[3].violations == std::vector<std::string>{"opset 11 below min 13"});
  CHECK(at(4) == std::pair(std::string("Conv f32"), OpClass::kUnsupportedOp));
  CHECK(r.pairs[4].replacement == "im2col and matmul");
  CHECK(at(5) == std::pair(std::string("Relu f32"), OpClass::kUnknownMapping));
  CHECK(at(6) == std::pair(std::string("aten::flash f16"), OpClass::kUnknownMapping));
  CHECK(at(7) ==
        std::pair(std::string("matmul "), OpClass::kSupported));  // no dtype: op-level check
  CHECK(r.total_occurrences == 15);
  CHECK(r.occurrences_by_class[OpClass::kSupported] == 8);
  CHECK(r.pairs_by_class[OpClass::kUnknownMapping] == 2);
}

TEST_CASE("check: attributes the node does not set are not checked") {
  OpMatrix m = parse_op_matrix(kMatrix, "m.yaml");
  OpOccurrence o;
  o.dtype = "f32";
  o.opset = 13;
  CHECK(check_occurrence(m, "softmax", o).cls == OpClass::kSupported);
  o.attributes["axis"] = "1";
  auto v = check_occurrence(m, "softmax", o);
  CHECK(v.cls == OpClass::kConstraintViolated);
  CHECK(v.violation == "axis=1 not in {-1}");
  CHECK(check_occurrence(m, "", o).cls == OpClass::kUnknownMapping);
  CHECK(check_occurrence(m, "conv", o).cls == OpClass::kUnsupportedOp);
}

TEST_CASE("check: problem_text renders the catalog's sentences") {
  std::map<std::string, std::string> p = {
      {"op", "Conv"}, {"backend", "npu"}, {"where", "1 node: c1"}};
  CHECK(problem_text(OpClass::kUnsupportedOp, p) ==
        "unsupported operator type Conv on npu; 1 node: c1");
  CHECK_THROWS_AS(problem_text(OpClass::kUnsupportedDtype, p), std::logic_error);
}
