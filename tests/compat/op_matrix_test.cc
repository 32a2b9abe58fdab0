// Operator matrices and the mapping table: the shipped files parse, and user
// files are read strictly.
#include <catch2/catch.hpp>

#include "compat/builtin_ops.h"
#include "compat/input_error.h"
#include "compat/op_matrix.h"
#include "tests/support/readme_blocks.h"

using namespace hn::compat;

namespace {
const char* kHead = "version: 1\nbackend: t\ndefault_replacement: x\n";
OpMatrix parse(const std::string& ops) {
  return parse_op_matrix(std::string(kHead) + ops, "m.yaml");
}
}  // namespace

TEST_CASE("matrix: every shipped matrix parses, examples say they are examples") {
  for (const auto& name : builtin_matrix_names()) {
    INFO(name);
    const auto& m = builtin_matrix(name);
    CHECK(m.backend == name);
    CHECK(m.example == (name.rfind("example-", 0) == 0));
    CHECK_FALSE(m.entries.empty());
  }
  CHECK_THROWS_WITH(builtin_matrix("ascend"),
                    Catch::Contains("built in: reference-cpu, example-npu"));
}

TEST_CASE("matrix: the operator matrix examples in docs/commands/ops.md parse") {
  int matrices = 0;
  for (const auto& b : hn::test::fenced_blocks(HN_SOURCE_DIR "/docs/commands/ops.md", "yaml")) {
    // Matrices have a top-level backend:; profiles are checked in profile_test.
    if (b.text.rfind("version: 1\n", 0) != 0 || b.text.find("\nbackend:") == std::string::npos)
      continue;
    INFO("docs/commands/ops.md line " << b.line);
    CHECK_NOTHROW(parse_op_matrix(b.text, "docs/commands/ops.md"));
    ++matrices;
  }
  CHECK(matrices >= 1);
}

TEST_CASE("matrix: entries with dtypes, constraints, replacement and notes") {
  auto m = parse(
      "ops:\n  softmax:\n    dtypes: [f32, bf16]\n    constraints:\n      rank: {min: 1, max: 4}\n"
      "      opset: {min: 13}\n      attributes: {axis: [\"-1\"]}\n    replacement: r\n    notes: "
      "n\n"
      "  conv:\n    dtypes: []\n");
  REQUIRE(m.entries.size() == 2);
  const auto* s = m.find("softmax");
  REQUIRE(s);
  CHECK(s->supports("bf16"));
  CHECK_FALSE(s->supports("f64"));
  CHECK(s->line == 5);
  CHECK(describe(s->constraints) == "rank 1..4, opset 13..any, axis in {-1}");
  CHECK(m.find("conv")->dtypes.empty());
  CHECK(m.find("gelu") == nullptr);
}

TEST_CASE("matrix: typos and contradictions are rejected with file:line and field") {
  CHECK_THROWS_WITH(parse("ops:\n  mm: {dtypes: [f33]}\n"),
                    Catch::Contains("m.yaml:5") && Catch::Contains("unknown dtype 'f33'"));
  CHECK_THROWS_WITH(parse("ops:\n  mm: {dtypes: [f32], constrains: {}}\n"),
                    Catch::Contains("unknown key 'constrains'"));
  CHECK_THROWS_WITH(parse("ops:\n  mm: {dtypes: [f32], constraints: {rank: {min: 3, max: 2}}}\n"),
                    Catch::Contains("min is above max"));
  CHECK_THROWS_WITH(parse("ops:\n  mm: {dtypes: [f32, f32]}\n"), Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(parse("ops:\n  mm: {dtypes: f32}\n"),
                    Catch::Contains("ops.mm.dtypes: expected a list"));
  CHECK_THROWS_WITH(parse_op_matrix("version: 1\nbackend: t\nops: {}\n", "m.yaml"),
                    Catch::Contains("default_replacement: missing"));
  CHECK_THROWS_WITH(
      parse_op_matrix("version: 2\nbackend: t\ndefault_replacement: x\nops: {}\n", "m.yaml"),
      Catch::Contains("unsupported version"));
}

TEST_CASE("mapping: the shipped table maps every L4 op name and resolves in-place aten ops") {
  const auto& m = builtin_mapping();
  OpOccurrence o;
  o.naming = OpNaming::kOnnx;
  o.domain = "ai.onnx";
  o.op = "LayerNormalization";
  CHECK(m.resolve(o) == "layernorm");
  o.op = "Gather";
  CHECK(m.resolve(o) == "embedding");
  o.op = "NoSuchOp";
  CHECK_FALSE(m.resolve(o).has_value());
  o.domain = "com.microsoft";
  o.op = "Gelu";
  CHECK(m.resolve(o) == "gelu");
  o.naming = OpNaming::kAten;
  o.op = "aten::relu_";
  CHECK(m.resolve(o) == "relu");
  o.op = "aten::mm";
  CHECK(m.resolve(o) == "matmul");
  o.naming = OpNaming::kMatrix;
  o.op = "anything";
  CHECK(m.resolve(o) == "anything");
  CHECK(m.onnx.size() > 200);
  CHECK_THROWS_WITH(parse_op_mapping("version: 1\naten:\n  mm: matmul\n", "map.yaml"),
                    Catch::Contains("aten ops are written aten::name"));
}
