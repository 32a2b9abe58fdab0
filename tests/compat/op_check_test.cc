// Classification of (op, dtype) pairs against a matrix.
#include <catch2/catch.hpp>

#include "compat/op_check.h"
#include "compat/op_list_reader.h"
#include "compat/trace_reader.h"

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

namespace {

// A backend with transpose and matmul kernels but no linear, addmm or
// matmul-as-a-whole: aten::matmul maps to a matrix name it does not list.
const char* kCompositeMatrix = R"(version: 1
backend: npu
default_replacement: none
ops:
  transpose: {dtypes: [f32]}
  mm: {dtypes: [f32]}
  add: {dtypes: [f32]}
  linear: {dtypes: [], replacement: use mm and add}
  addmm: {dtypes: []}
  fused: {dtypes: [f32]}
)";
const char* kCompositeMapping = R"(version: 1
aten: {'aten::t': transpose, 'aten::mm': mm, 'aten::add': add, 'aten::linear': linear,
       'aten::addmm': addmm, 'aten::matmul': matmul, 'aten::fused': fused}
)";

struct Call {
  std::string name;
  double ts, dur;
};

OpCheckResult check_trace(const std::vector<Call>& calls) {
  std::string s = "{\"traceEvents\": [";
  for (std::size_t i = 0; i < calls.size(); ++i)
    s += std::string(i ? "," : "") + R"({"ph":"X","cat":"cpu_op","pid":1,"tid":1,"name":")" +
         calls[i].name + R"(","ts":)" + std::to_string(calls[i].ts) + R"(,"dur":)" +
         std::to_string(calls[i].dur) + R"(,"args":{"Input Dims":[[4,4]],"Input type":["float"]}})";
  s += "]}";
  return check_inventory(parse_op_matrix(kCompositeMatrix, "m.yaml"),
                         parse_op_mapping(kCompositeMapping, "map.yaml"),
                         read_trace_text(s, "t.json"));
}

const OpPairResult& pair(const OpCheckResult& r, const std::string& op) {
  for (const auto& p : r.pairs)
    if (p.op == op) return p;
  FAIL("no pair " << op);
  throw;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("check composites: depth 2, every nested op runs, so the parent is decomposed") {
  auto r = check_trace({{"aten::linear", 0, 100}, {"aten::t", 1, 5}, {"aten::mm", 10, 80}});
  const auto& linear = pair(r, "aten::linear");
  CHECK(linear.cls == OpClass::kDecomposed);
  CHECK(linear.own_cls == OpClass::kUnsupportedOp);
  CHECK(linear.occurrences == 0);  // counted as its nested calls
  CHECK(linear.composite_calls == 1);
  CHECK(linear.nested == Names{"aten::t f32", "aten::mm f32"});
  CHECK(linear.blocking.empty());
  CHECK(r.total_occurrences == 2);  // t and mm, not linear
  CHECK(r.composite_calls == 1);
  CHECK(r.occurrences_by_class[OpClass::kSupported] == 2);
  CHECK(r.pairs_by_class[OpClass::kDecomposed] == 1);
  CHECK(r.unsupported_self_us == 0);
}

TEST_CASE("check composites: depth 3, a composite inside a composite") {
  // linear -> (t, matmul -> (mm, add)): matmul is not in the matrix but runs
  // as mm + add, so linear runs as t + that.
  auto r = check_trace({{"aten::linear", 0, 100},
                        {"aten::t", 1, 5},
                        {"aten::matmul", 10, 80},
                        {"aten::mm", 11, 50},
                        {"aten::add", 70, 10}});
  CHECK(pair(r, "aten::matmul").cls == OpClass::kDecomposed);
  CHECK(pair(r, "aten::linear").cls == OpClass::kDecomposed);
  CHECK(pair(r, "aten::linear").nested == Names{"aten::t f32", "aten::matmul f32"});
  CHECK(r.total_occurrences == 3);  // t, mm, add
  CHECK(r.composite_calls == 2);
}

TEST_CASE("check composites: a parent with an unsupported nested op still fails, naming it") {
  auto r = check_trace({{"aten::linear", 0, 100}, {"aten::t", 1, 5}, {"aten::addmm", 10, 80}});
  const auto& linear = pair(r, "aten::linear");
  CHECK(linear.cls == OpClass::kUnsupportedOp);
  CHECK(linear.blocking == Names{"aten::addmm f32 (unsupported-op)"});
  CHECK(pair(r, "aten::addmm").cls == OpClass::kUnsupportedOp);
  CHECK(pair(r, "aten::t").cls == OpClass::kSupported);
  CHECK(r.total_occurrences == 2);
  CHECK(r.occurrences_by_class[OpClass::kUnsupportedOp] == 1);  // addmm; linear is not counted
  CHECK(r.pairs_by_class[OpClass::kUnsupportedOp] == 2);
  CHECK(r.unsupported_self_us == (100 - 5 - 80) + 80);  // linear's own time counts as unsupported

  // Depth 3: the failure climbs, each level naming the op directly inside it.
  auto deep = check_trace({{"aten::linear", 0, 100},
                           {"aten::matmul", 10, 80},
                           {"aten::addmm", 11, 50},
                           {"aten::add", 70, 10}});
  CHECK(pair(deep, "aten::matmul").blocking == Names{"aten::addmm f32 (unsupported-op)"});
  CHECK(pair(deep, "aten::linear").blocking == Names{"aten::matmul f32 (unsupported-op)"});
  CHECK(pair(deep, "aten::linear").cls == OpClass::kUnsupportedOp);
}

TEST_CASE("check composites: siblings, and a parent the backend runs as itself") {
  // Two top-level calls side by side; aten::fused is supported as itself, so
  // it passes, and what ran inside it is still checked on its own.
  auto r = check_trace({{"aten::fused", 0, 50},
                        {"aten::t", 1, 5},
                        {"aten::addmm", 10, 30},
                        {"aten::linear", 50, 50},
                        {"aten::t", 51, 5},
                        {"aten::mm", 60, 30}});
  CHECK(pair(r, "aten::fused").cls == OpClass::kSupported);
  CHECK(pair(r, "aten::fused").composite_calls == 1);
  CHECK(pair(r, "aten::fused").blocking.empty());
  CHECK(pair(r, "aten::linear").cls == OpClass::kDecomposed);
  CHECK(pair(r, "aten::addmm").cls == OpClass::kUnsupportedOp);
  CHECK(pair(r, "aten::t").occurrences == 2);
  CHECK(r.total_occurrences == 4);  // t, addmm, t, mm
}

TEST_CASE("check composites: a hand-made inventory with a cycle cannot pass") {
  OpMatrix m = parse_op_matrix(kCompositeMatrix, "m.yaml");
  OpMapping map = parse_op_mapping(kCompositeMapping, "map.yaml");
  OpInventory inv;
  inv.kind = InventoryKind::kTrace;
  for (const char* op : {"aten::linear", "aten::addmm"}) {
    OpOccurrence o;
    o.naming = OpNaming::kAten;
    o.op = op;
    o.dtype = "f32";
    inv.ops.push_back(o);
  }
  inv.ops[0].children = {1};
  inv.ops[1].children = {0, 7};  // a cycle and an index out of range
  auto r = check_inventory(m, map, inv);
  CHECK(r.pairs[0].cls == OpClass::kUnsupportedOp);
  CHECK(r.pairs[1].cls == OpClass::kUnsupportedOp);
}
