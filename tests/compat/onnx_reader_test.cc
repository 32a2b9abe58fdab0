// The ONNX reader on real models from Debian's libonnx-testdata, on models
// built here with protobuf, and on truncated and corrupted files.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "compat/input_error.h"
#include "compat/onnx_reader.h"
#include "compat/text_file.h"
#include "tests/support/skip.h"

using namespace hn::compat;

namespace {

const std::string kData = "/usr/share/libonnx-testdata/data";

std::string model(const std::string& rel) {
  std::string p = kData + "/" + rel + "/model.onnx";
  if (!std::filesystem::exists(p)) hn::test::skip("libonnx-testdata is not installed (" + p + ")");
  return p;
}

std::vector<std::string> summary(const OpInventory& inv) {
  std::vector<std::string> out;
  for (const auto& o : inv.ops)
    out.push_back(o.where + " " + o.domain + "::" + o.op + "@" + std::to_string(o.opset) + " " +
                  o.dtype + (o.rank ? " r" + std::to_string(*o.rank) : ""));
  return out;
}

}  // namespace

TEST_CASE("onnx: test_add gives one Add, opset 14, f32, rank 3") {
  auto inv = read_onnx_file(model("node/test_add"));
  CHECK(inv.kind == InventoryKind::kOnnx);
  CHECK(inv.detail == "ONNX IR version 7, opset ai.onnx 14");
  CHECK(summary(inv) == std::vector<std::string>{"Add#1 ai.onnx::Add@14 f32 r3"});
}

TEST_CASE("onnx: If subgraphs are walked, nodes named by their path") {
  auto inv = read_onnx_file(model("node/test_if"));
  CHECK(summary(inv) ==
        std::vector<std::string>{"If#1 ai.onnx::If@11 bool r0",
                                 "If#1/else_branch/Constant#2 ai.onnx::Constant@11 f32 r1",
                                 "If#1/then_branch/Constant#3 ai.onnx::Constant@11 f32 r1"});
}

TEST_CASE("onnx: Scan and Loop bodies see the outer scope's types") {
  auto scan = read_onnx_file(model("node/test_scan9_sum"));
  CHECK(summary(scan) ==
        std::vector<std::string>{"Scan#1 ai.onnx::Scan@9 f32 r1",
                                 "Scan#1/body/Add#2 ai.onnx::Add@9 f32 r1",
                                 "Scan#1/body/Identity#3 ai.onnx::Identity@9 f32 r1"});
  auto loop = read_onnx_file(model("node/test_loop11"));
  REQUIRE(loop.ops.size() == 10);
  CHECK(loop.ops[0].op == "Loop");
  CHECK(loop.ops[4].where == "Loop#1/body/Add#5");
  CHECK(loop.ops[4].dtype == "i64");
}

TEST_CASE("onnx: attributes as text and non-default domains with their opset") {
  auto sm = read_onnx_file(model("node/test_softmax_axis_0"));
  REQUIRE(sm.ops.size() == 1);
  CHECK(sm.ops[0].attributes == std::map<std::string, std::string>{{"axis", "0"}});
  auto grad = read_onnx_file(model("simple/test_gradient_of_add"));
  REQUIRE(grad.ops.size() == 2);
  CHECK(grad.ops[1].domain == "ai.onnx.preview.training");
  CHECK(grad.ops[1].opset == 1);
  CHECK(grad.ops[1].where == "my_gradient");
}

TEST_CASE("onnx: shape inference supplies dtypes missing from value_info") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  auto* cast = g->add_node();
  cast->set_op_type("Cast");
  cast->set_name("to_half");
  cast->add_input("x");
  cast->add_output("h");
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(10);  // FLOAT16
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("act");
  relu->add_input("h");
  relu->add_output("y");
  g->add_output()->set_name("y");
  auto inv = read_onnx_bytes(m.SerializeAsString(), "built.onnx");
  REQUIRE(inv.ops.size() == 2);
  CHECK(inv.ops[0].dtype == "f32");
  CHECK(inv.ops[0].attributes.at("to") == "10");
  CHECK(inv.ops[1].dtype == "f16");  // only known through inference: "h" has no value_info
  CHECK(inv.ops[1].rank == 1);
}

TEST_CASE("onnx: empty, text, truncated and corrupted files are InputErrors, never crashes") {
  CHECK_THROWS_AS(read_onnx_bytes("", "empty.onnx"), InputError);
  CHECK_THROWS_WITH(read_onnx_bytes("name: not a model\n", "text.onnx"),
                    Catch::Contains("text.onnx: "));
  const std::string bytes = read_text_file(model("node/test_if"));
  CHECK_THROWS_WITH(read_onnx_bytes(bytes.substr(0, bytes.size() / 2), "half.onnx"),
                    Catch::Contains("truncated"));
  // Every prefix: either a clean error or a (partial) inventory.
  int errors = 0;
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    try {
      read_onnx_bytes(bytes.substr(0, n), "prefix.onnx");
    } catch (const InputError&) {
      ++errors;
    }
  }
  CHECK(errors > static_cast<int>(bytes.size()) * 9 / 10);
  // Random corruption, fresh each run.
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 2000; ++i) {
    std::string b = bytes;
    for (int k = 0; k < 3; ++k) b[rng() % b.size()] = static_cast<char>(rng());
    try {
      read_onnx_bytes(b, "corrupt.onnx");
    } catch (const InputError&) {
    }
  }
  CHECK_THROWS_AS(read_onnx_file("/nonexistent/model.onnx"), InputError);
}

TEST_CASE("onnx: dtype names follow TensorProto.DataType") {
  CHECK(onnx_dtype_name(1) == "f32");
  CHECK(onnx_dtype_name(7) == "i64");
  CHECK(onnx_dtype_name(10) == "f16");
  CHECK(onnx_dtype_name(11) == "f64");
  CHECK(onnx_dtype_name(16) == "bf16");
  CHECK(onnx_dtype_name(0).empty());
  CHECK(onnx_dtype_name(99) == "dtype<99>");
}

TEST_CASE("onnx: a Scan whose num_scan_inputs exceeds its inputs is refused before inference") {
  // A 99-byte file of this shape made shape inference allocate 8 GiB.
  for (std::int64_t n :
       {std::int64_t{1} << 30, std::int64_t{0}, std::int64_t{-5}, std::int64_t{2}}) {
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(11);
    auto* g = m.mutable_graph();
    g->set_name("g");
    g->add_input()->set_name("a");
    g->add_output()->set_name("b");
    auto* scan = g->add_node();
    scan->set_op_type("Scan");
    scan->set_name("loop");
    scan->add_input("a");
    scan->add_output("b");
    auto* a = scan->add_attribute();
    a->set_name("num_scan_inputs");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(n);
    auto* body = scan->add_attribute();
    body->set_name("body");
    body->set_type(onnx::AttributeProto::GRAPH);
    auto* bg = body->mutable_g();
    bg->add_input()->set_name("x");
    bg->add_output()->set_name("y");
    auto* id = bg->add_node();
    id->set_op_type("Identity");
    id->add_input("x");
    id->add_output("y");
    CHECK_THROWS_WITH(read_onnx_bytes(m.SerializeAsString(), "scan.onnx"),
                      Catch::StartsWith("scan.onnx: loop.num_scan_inputs: is " + std::to_string(n) +
                                        ", but the Scan node has 1 inputs"));
    a->set_i(1);  // the same model, valid: read
    CHECK(read_onnx_bytes(m.SerializeAsString(), "scan.onnx").ops.size() == 2);
  }
}
