// Operator findings: statuses, parameters, the summary, and that the L4
// error and the finding say the same thing.
#include <catch2/catch.hpp>

#include "compat/builtin_ops.h"
#include "compat/op_list_reader.h"
#include "compat/trace_reader.h"
#include "probes/op_findings.h"
#include "reports/catalog.h"
#include "stack/l4_operator/graph.h"

using namespace hn;
using compat::OpClass;

TEST_CASE("op findings: the catalog and compat::problem_text render the same sentences") {
  std::map<std::string, std::string> p = {
      {"op", "Softmax"},          {"dtype", "f64"},          {"backend", "npu"},
      {"where", "2 nodes: a, b"}, {"supported", "f16, f32"}, {"violation", "axis=0 not in {-1}"},
      {"naming", "onnx"},         {"replacement", "r"},      {"constraints", "c"},
      {"own", "unsupported-op"}};
  for (OpClass c :
       {OpClass::kUnsupportedOp, OpClass::kUnsupportedDtype, OpClass::kConstraintViolated,
        OpClass::kUnknownMapping, OpClass::kSupported, OpClass::kDecomposed, OpClass::kNoKernel}) {
    INFO(compat::to_string(c));
    auto f = reports::make_finding(compat::finding_code(c), reports::Status::kFail, "e", p);
    CHECK(f.message == compat::problem_text(c, p));
  }
}

TEST_CASE("op findings: an L4 graph error becomes the same finding as `ops` reports") {
  stack::op::Graph g;
  g.inputs = {"x"};
  g.nodes = {{"act", "log_softmax", {"x"}, "y", {}}};
  g.outputs = {"y"};
  try {
    stack::op::validate(g, {{"x", {stack::op::DType::kF32, {2, 3}}}},
                        compat::builtin_matrix("reference-cpu"));
    FAIL("expected UnsupportedOpError");
  } catch (const stack::op::UnsupportedOpError& e) {
    auto f = reports::make_finding(e.code(), reports::Status::kFail, "log_softmax f32", e.params());
    CHECK(f.code == "OP-UNSUPPORTED-TYPE");
    CHECK(f.message == e.what());
    CHECK(f.message == "unsupported operator type log_softmax on reference-cpu; node act");
    CHECK_THAT(f.remediation, Catch::Contains("softmax followed by log"));
  }
}

TEST_CASE("op findings: statuses per class and a summary with counts and shares") {
  const auto& m = compat::builtin_matrix("reference-cpu");
  auto inv = compat::read_op_list_text(
      "MatMul f32 3\nConv f32\nMatMul f64\naten::flash f16\nSoftmax\n", "l.txt");
  auto r = compat::check_inventory(m, compat::builtin_mapping(), inv);
  auto fs = probes::op_findings(r, m, false);
  REQUIRE(fs.size() == 6);
  CHECK(fs[0].code == "OP-SUPPORTED");
  CHECK(fs[0].status == reports::Status::kPass);
  CHECK(fs[0].entity == "MatMul f32");
  CHECK(fs[0].message == "MatMul (f32) is supported on reference-cpu; 3 entries: l.txt:1");
  CHECK(fs[1].code == "OP-UNSUPPORTED-TYPE");
  CHECK(fs[1].status == reports::Status::kFail);
  CHECK(fs[1].message == "unsupported operator type Conv on reference-cpu; 1 entry: l.txt:2");
  CHECK(fs[2].code == "OP-SUPPORTED");  // MatMul f64
  CHECK(fs[3].code == "OP-UNKNOWN-MAPPING");
  CHECK(fs[3].status == reports::Status::kWarn);
  CHECK(fs[4].entity == "Softmax dtype unknown");
  CHECK(fs[4].status == reports::Status::kPass);  // op lists may leave the dtype out
  const auto& s = fs[5];
  CHECK(s.code == "OP-MODEL-SUMMARY");
  CHECK(s.status == reports::Status::kFail);
  CHECK(
      s.message ==
      "1 of 7 op occurrences (14.3%) in 1 of 5 op/dtype pairs are not supported on reference-cpu; "
      "1 with unknown mapping");
  CHECK(s.metrics.at("occurrences_supported").value == 5);
}

TEST_CASE("op findings: an input with no operators is a WARN, never 'all supported'") {
  const auto& m = compat::builtin_matrix("reference-cpu");
  auto inv = compat::read_op_list_text("# nothing here\n", "empty.txt");
  auto fs =
      probes::op_findings(compat::check_inventory(m, compat::builtin_mapping(), inv), m, false);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "OP-MODEL-EMPTY");
  CHECK(fs[0].status == reports::Status::kWarn);
  CHECK_THAT(fs[0].message, Catch::Contains("holds no operators"));
}

TEST_CASE("op findings: composites in a trace, decomposed or failing through a nested op") {
  const auto& m = compat::builtin_matrix("reference-cpu");
  // reference-cpu has transpose and matmul but neither linear nor addmm.
  auto trace = [](const std::string& inner) {
    return R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100,
       "args":{"Input Dims":[[4,4]],"Input type":["float"]}},
      {"ph":"X","cat":"cpu_op","name":"aten::t","pid":1,"tid":1,"ts":1,"dur":5,
       "args":{"Input Dims":[[4,4]],"Input type":["float"]}},
      {"ph":"X","cat":"cpu_op","name":")" +
           inner + R"(","pid":1,"tid":1,"ts":10,"dur":80,
       "args":{"Input Dims":[[4,4]],"Input type":["float"]}}]})";
  };
  auto run = [&](const std::string& inner) {
    auto inv = compat::read_trace_text(trace(inner), "t.json");
    return probes::op_findings(compat::check_inventory(m, compat::builtin_mapping(), inv), m,
                               false);
  };

  auto ok = run("aten::mm");
  REQUIRE(ok.size() == 4);
  CHECK(ok[0].code == "OP-DECOMPOSED");
  CHECK(ok[0].status == reports::Status::kPass);
  CHECK(ok[0].message ==
        "aten::linear (f32) runs on reference-cpu as the ops nested in it, which all run there "
        "(aten::linear itself: unsupported-op); 1 composite call (runs as aten::t f32, aten::mm "
        "f32), 0.015 ms self (15.0% of cpu_op self time)");
  CHECK(ok[3].code == "OP-MODEL-SUMMARY");
  CHECK(ok[3].status == reports::Status::kPass);
  CHECK(ok[3].message ==
        "all 1 op occurrences (3 op/dtype pairs) are supported on reference-cpu (0.100 ms "
        "cpu_op self time); occurrences are innermost ops only: 1 composite call (aten::linear) "
        "counted as the ops nested in it; 1 occurrences of ops no backend runs as kernels "
        "(constants, identities, shape queries, views, allocations) are not counted");

  auto bad = run("aten::addmm");
  REQUIRE(bad.size() == 4);
  CHECK(bad[0].code == "OP-UNSUPPORTED-TYPE");
  CHECK(bad[0].status == reports::Status::kFail);
  CHECK(bad[0].message ==
        "unsupported operator type aten::linear on reference-cpu; 1 composite call (runs as "
        "aten::t f32, aten::addmm f32), 0.015 ms self (15.0% of cpu_op self time); its nested op "
        "cannot run either: aten::addmm f32 (unsupported-op)");
  CHECK(bad[0].evidence.at("blocking") == "aten::addmm f32 (unsupported-op)");
  CHECK(bad[2].code == "OP-UNSUPPORTED-TYPE");  // aten::addmm, with its own finding
  CHECK(bad[3].status == reports::Status::kFail);
  CHECK_THAT(bad[3].message,
             Catch::StartsWith("1 of 1 op occurrences (100.0%) in 2 of 3 op/dtype pairs"));
}
