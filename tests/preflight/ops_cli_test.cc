// `hnprecheck ops` driven as a user runs it: exact findings for chosen
// models, traces and op lists, the CSV, exit codes, and bad input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using hn::test::TempDir;
using nlohmann::json;

namespace {

const std::string kData = "/usr/share/libonnx-testdata/data";
const std::string kFixtures = HN_FIXTURE_DIR;

hn::test::ProcessResult ops(std::vector<std::string> args) {
  args.insert(args.begin(), {HN_BINARY, "ops"});
  return run_process(args, 120);
}

std::string model(const std::string& rel) {
  std::string p = kData + "/" + rel + "/model.onnx";
  if (!std::filesystem::exists(p)) hn::test::skip("libonnx-testdata is not installed");
  return p;
}

// "CODE STATUS entity" for every finding of a --json - run.
std::vector<std::string> findings(const hn::test::ProcessResult& r) {
  std::vector<std::string> out;
  const json doc = json::parse(r.out);  // kept alive: a range-for over parse(...)[key] dangles
  for (const auto& f : doc["findings"])
    out.push_back(f["code"].get<std::string>() + " " + f["status"].get<std::string>() + " " +
                  f["entity"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("ops cli: a supported model passes with exit 0") {
  auto r = ops({model("node/test_add"), "--backend", "reference-cpu", "--json", "-"});
  CHECK(r.exit_code == 0);
  CHECK(findings(r) == std::vector<std::string>{"OP-SUPPORTED PASS Add f32",
                                                "OP-MODEL-SUMMARY PASS " + model("node/test_add")});
  CHECK_THAT(r.err, Catch::Contains(
                        "all 1 op occurrences (1 op/dtype pairs) are supported on reference-cpu"));
}

TEST_CASE("ops cli: If subgraph with an op outside reference-cpu fails with exit 1") {
  auto r = ops({model("node/test_if"), "--backend", "reference-cpu", "--json", "-", "--no-color"});
  CHECK(r.exit_code == 1);
  // Constant is no kernel on any backend: its own class, not a failure.
  CHECK(findings(r) == std::vector<std::string>{"OP-UNSUPPORTED-TYPE FAIL If bool",
                                                "OP-NO-KERNEL PASS Constant f32",
                                                "OP-MODEL-SUMMARY FAIL " + model("node/test_if")});
  CHECK_THAT(r.err,
             Catch::Contains("Constant is not run as a kernel on any backend") &&
                 Catch::Contains("If#1/else_branch/Constant#2, If#1/then_branch/Constant#3"));
}

TEST_CASE("ops cli: Loop body, constraint violation and dtype per backend") {
  auto r = ops({model("node/test_scan9_sum"), model("node/test_softmax_axis_0"), "--backend",
                "reference-cpu", "--json", "-"});
  CHECK(r.exit_code == 1);
  const std::string scan = model("node/test_scan9_sum"), sm = model("node/test_softmax_axis_0");
  CHECK(findings(r) == std::vector<std::string>{"OP-UNSUPPORTED-TYPE FAIL " + scan + ": Scan f32",
                                                "OP-SUPPORTED PASS " + scan + ": Add f32",
                                                "OP-NO-KERNEL PASS " + scan + ": Identity f32",
                                                "OP-MODEL-SUMMARY FAIL " + scan,
                                                "OP-CONSTRAINT FAIL " + sm + ": Softmax f32",
                                                "OP-MODEL-SUMMARY FAIL " + sm});
  auto j = json::parse(r.out)["extra"]["ops"];
  CHECK(j["files"][0]["pairs"][1]["where"] == json::array({"Scan#1/body/Add#2"}));
  CHECK(j["files"][1]["pairs"][0]["violations"] == json::array({"axis=0 not in {-1}"}));
  // example-npu has Softmax f32 without the axis limit, and no Add in f64.
  auto npu = ops({model("node/test_softmax_axis_0"), "--backend", "example-npu"});
  CHECK(npu.exit_code == 0);
  CHECK_THAT(npu.out, Catch::Contains("EXAMPLE matrix"));
}

TEST_CASE("ops cli: a trace reports calls, self time and the unsupported share of time") {
  auto r =
      ops({kFixtures + "/ops/train_step_trace.json", "--backend", "reference-cpu", "--json", "-"});
  CHECK(r.exit_code == 1);
  CHECK(findings(r) ==
        std::vector<std::string>{
            "OP-UNSUPPORTED-TYPE FAIL aten::linear f32", "OP-NO-KERNEL PASS aten::t f32",
            "OP-UNSUPPORTED-TYPE FAIL aten::addmm f32", "OP-SUPPORTED PASS aten::relu f32",
            "OP-UNKNOWN-MAPPING WARN aten::my_custom_op f32",
            "OP-SUPPORTED PASS aten::mm bf16",  // first seen at event 9
            "OP-MODEL-SUMMARY FAIL " + kFixtures + "/ops/train_step_trace.json"});
  CHECK_THAT(r.err, Catch::Contains("aten::addmm f32") &&
                        Catch::Contains("1 call, 0.080 ms self (42.0% of cpu_op self time)"));
  // Occurrences are innermost calls: aten::linear ran as aten::t + aten::addmm,
  // so the 7 aten:: calls are 6 occurrences (5 counted: aten::t is a view),
  // and linear fails through addmm.
  CHECK_THAT(
      r.err,
      Catch::Contains(
          "1 of 5 op occurrences (20.0%) in 2 of 6 op/dtype pairs are not "
          "supported on reference-cpu, 50.1% of the cpu_op self time (0.096 of 0.191 ms); "
          "1 with unknown mapping; occurrences are innermost ops only: 1 composite call "
          "(aten::linear) counted as the ops nested in it; 1 occurrences of ops no backend runs as "
          "kernels"));
  CHECK_THAT(r.err, Catch::Contains("unsupported operator type aten::linear on reference-cpu; 1 "
                                    "composite call (runs as aten::t f32, aten::addmm f32)") &&
                        Catch::Contains("its nested op cannot run either: aten::addmm f32 "
                                        "(unsupported-op)"));
  auto file = json::parse(r.out)["extra"]["ops"]["files"][0];
  CHECK(file["total_occurrences"] == 5);  // aten::t is a view: no kernel, not counted
  CHECK(file["composite_calls"] == 1);
  CHECK(file["pairs"][0]["occurrences"] == 0);
  CHECK(file["pairs"][0]["composite_calls"] == 1);
  CHECK(file["pairs"][0]["blocking"] == json::array({"aten::addmm f32 (unsupported-op)"}));

  // example-npu has linear itself: it passes as supported, and every other
  // op of the trace runs there too except the custom one.
  auto npu = ops({kFixtures + "/ops/train_step_trace.json", "--backend", "example-npu"});
  CHECK(npu.exit_code == 0);
}

TEST_CASE("ops cli: CSV in the migration-analysis columns") {
  TempDir dir;
  std::string list =
      dir.write("inv.txt", "MatMul f32\nConv f16 4\n# note\nLayerNormalization f64\n");
  auto r = ops({list, "--backend", "example-npu", "--csv", dir.path() + "/out.csv", "--quiet"});
  CHECK(r.exit_code == 1);
  std::string csv = hn::test::read_file(dir.path() + "/out.csv");
  CHECK_THAT(csv, Catch::StartsWith("File,Start Line,End Line,OP,Tips\r\n"));
  CHECK_THAT(
      csv, Catch::Contains(
               "\r\n" + list +
               ",4,4,LayerNormalization,\"unsupported-dtype: LayerNormalization "
               "does not support dtype f64 on example-npu (supported: f16, bf16, f32); 1 entry: " +
               list + ":4 -> Cast LayerNormalization's inputs to one of f16, bf16, f32"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 2);  // header + the one unsupported pair
}

TEST_CASE("ops cli: usage and bad input exit 2 with a clear message") {
  auto r = ops({model("node/test_add")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("give exactly one of --backend NAME"));
  r = ops({model("node/test_add"), "--backend", "tpu"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown backend 'tpu'"));
  TempDir dir;
  std::string bytes = hn::test::read_file(model("node/test_if"));
  std::string cut = dir.write("cut.onnx", bytes.substr(0, bytes.size() / 2));
  r = ops({cut, "--backend", "reference-cpu"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("cut.onnx: not a valid ONNX model"));
  std::string notjson = dir.write("trace.json", "this is not json\n");
  r = ops({notjson, "--backend", "reference-cpu"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("trace.json:1:2: not a JSON trace: syntax error"));
  std::string matrix = dir.write(
      "m.yaml", "version: 1\nbackend: x\ndefault_replacement: y\nops:\n  mm: {dtypes: [fp32]}\n");
  r = ops({model("node/test_add"), "--matrix", matrix});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("m.yaml:5") && Catch::Contains("unknown dtype 'fp32'"));
}

TEST_CASE("ops cli: a user matrix file works like a built-in one") {
  TempDir dir;
  std::string matrix = dir.write(
      "m.yaml",
      "version: 1\nbackend: mine\ndefault_replacement: y\nops:\n  add: {dtypes: [f32]}\n");
  auto r = ops({model("node/test_add"), "--matrix", matrix});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Add (f32) is supported on mine"));
}
