// Hand-made op inventories in text and YAML.
#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/op_list_reader.h"

using namespace hn::compat;

TEST_CASE("op list text: OP [DTYPE] [COUNT], comments, naming by form") {
  auto inv = read_op_list_text(
      "# inventory\naten::mm bf16 120\n\nSoftmax f32  # onnx\nlayernorm\n"
      "com.microsoft::Gelu f16 2\n",
      "ops.txt");
  REQUIRE(inv.ops.size() == 4);
  CHECK(inv.ops[0].naming == OpNaming::kAten);
  CHECK(inv.ops[0].count == 120);
  CHECK(inv.ops[0].position == 2);
  CHECK(inv.ops[0].where == "ops.txt:2");
  CHECK(inv.ops[1].naming == OpNaming::kOnnx);
  CHECK(inv.ops[1].domain == "ai.onnx");
  CHECK(inv.ops[1].dtype == "f32");
  CHECK(inv.ops[2].naming == OpNaming::kMatrix);
  CHECK(inv.ops[2].dtype.empty());
  CHECK(inv.ops[3].domain == "com.microsoft");
  CHECK(inv.ops[3].op == "Gelu");
}

TEST_CASE("op list text: bad lines are InputErrors with the line") {
  CHECK_THROWS_WITH(read_op_list_text("mm f32 3 extra\n", "ops.txt"),
                    Catch::StartsWith("ops.txt:1:"));
  CHECK_THROWS_WITH(read_op_list_text("\nmm f32 zero\n", "ops.txt"),
                    Catch::StartsWith("ops.txt:2: count:"));
  CHECK_THROWS_AS(read_op_list_text("mm f32 -1\n", "ops.txt"), InputError);
  CHECK_THROWS_AS(read_op_list_text("mm\x01 f32\n", "ops.txt"), InputError);
  // A dtype typo is an input error, not an "unsupported dtype" finding.
  CHECK_THROWS_WITH(read_op_list_text("Add f32\nAdd f99 3\n", "ops.txt"),
                    Catch::StartsWith("ops.txt:2: dtype: unknown dtype 'f99'"));
  CHECK_THROWS_WITH(read_op_list_text("Add 3\n", "ops.txt"), Catch::Contains("unknown dtype '3'"));
  CHECK_THROWS_WITH(
      read_op_list_yaml("version: 1\nops:\n  - {op: Add, dtype: float99}\n", "o.yaml"),
      Catch::Contains("o.yaml:3") && Catch::Contains("unknown dtype 'float99'"));
}

TEST_CASE("op list YAML: names and maps with dtype, count, rank, opset, attributes") {
  auto inv = read_op_list_yaml(
      "version: 1\nops:\n  - aten::relu\n  - {op: Softmax, dtype: f32, count: 3, rank: 2, opset: "
      "11,"
      " attributes: {axis: 1}}\n",
      "ops.yaml");
  REQUIRE(inv.ops.size() == 2);
  CHECK(inv.ops[0].naming == OpNaming::kAten);
  CHECK(inv.ops[0].position == 3);
  CHECK(inv.ops[1].count == 3);
  CHECK(inv.ops[1].rank == 2);
  CHECK(inv.ops[1].opset == 11);
  CHECK(inv.ops[1].attributes.at("axis") == "1");
}

TEST_CASE("op list YAML: strict about keys and types") {
  CHECK_THROWS_WITH(read_op_list_yaml("ops:\n  - {op: mm, dtyp: f32}\n", "o.yaml"),
                    Catch::Contains("unknown key 'dtyp'"));
  CHECK_THROWS_WITH(read_op_list_yaml("ops: 3\n", "o.yaml"), Catch::Contains("expected a list"));
  CHECK_THROWS_WITH(read_op_list_yaml("opz: []\n", "o.yaml"), Catch::Contains("ops: missing"));
  CHECK_THROWS_WITH(read_op_list_yaml("ops:\n  - {op: mm, count: 0}\n", "o.yaml"),
                    Catch::Contains("o.yaml:2"));
  CHECK_THROWS_AS(read_op_list_yaml("ops:\n  - {op: 'aten::', dtype: f32}\n", "o.yaml"),
                  InputError);
  CHECK_THROWS_AS(read_op_list_yaml("ops: [a, [b\n", "o.yaml"), InputError);
}
