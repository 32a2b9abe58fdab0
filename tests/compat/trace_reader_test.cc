// The torch.profiler trace reader on small hand-written traces in kineto's
// Chrome-trace shape (tests/fixtures/ops/train_step_trace.json).
#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/trace_reader.h"

using namespace hn::compat;

namespace {
const std::string kTrace = std::string(HN_FIXTURE_DIR) + "/ops/train_step_trace.json";

const OpOccurrence& find(const OpInventory& inv, const std::string& op) {
  for (const auto& o : inv.ops)
    if (o.op == op) return o;
  FAIL("no " << op);
  throw;
}
}  // namespace

TEST_CASE("trace: aten cpu_ops with dtype, rank, calls, inclusive and self time") {
  auto inv = read_trace_file(kTrace);
  CHECK(inv.kind == InventoryKind::kTrace);
  REQUIRE(inv.ops.size() == 6);
  const auto& linear = find(inv, "aten::linear");
  CHECK(linear.naming == OpNaming::kAten);
  CHECK(linear.dtype == "f32");
  CHECK(linear.rank == 2);
  CHECK(linear.count == 1);
  CHECK(linear.total_us == 100.5);
  CHECK(linear.self_us == 15.5);  // minus aten::t (5) and aten::addmm (80) nested in it
  CHECK(linear.position == 2);    // 1-based index in traceEvents
  const auto& addmm = find(inv, "aten::addmm");
  CHECK(addmm.dtype == "f32");  // Scalar arguments are skipped
  CHECK(addmm.rank == 1);
  CHECK(addmm.self_us == 80.0);
  const auto& mm = find(inv, "aten::mm");
  CHECK(mm.dtype == "bf16");
  CHECK(mm.count == 2);
  CHECK(mm.total_us == 50.0);
  CHECK(mm.position == 9);
  CHECK(mm.last_position == 10);
  const auto& custom = find(inv, "aten::my_custom_op");
  CHECK(custom.dtype == "f32");  // "" (None) skipped
  CHECK(custom.rank == 1);
  // Every cpu_op's self time, aten or not (the autograd one adds 10 us);
  // user_annotation and kernel events are not cpu_ops.
  CHECK(inv.total_self_us == 15.5 + 5 + 80 + 20 + 10 + 50 + 10);
}

TEST_CASE("trace: the JSON array format and traces without record_shapes") {
  auto inv = read_trace_text(
      R"([{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":2.5,"args":{}},
          {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":3,"dur":1.5}])",
      "array.json");
  REQUIRE(inv.ops.size() == 1);
  CHECK(inv.ops[0].dtype.empty());
  CHECK_FALSE(inv.ops[0].rank.has_value());
  CHECK(inv.ops[0].count == 2);
  CHECK(inv.ops[0].total_us == 4.0);
}

TEST_CASE("trace: c10 type names map to matrix dtypes") {
  CHECK(c10_dtype_name("float") == "f32");
  CHECK(c10_dtype_name("double") == "f64");
  CHECK(c10_dtype_name("c10::Half") == "f16");
  CHECK(c10_dtype_name("c10::BFloat16") == "bf16");
  CHECK(c10_dtype_name("long int") == "i64");
  CHECK(c10_dtype_name("int") == "i32");
  CHECK(c10_dtype_name("Scalar").empty());
  CHECK(c10_dtype_name("ScalarList").empty());
  CHECK(c10_dtype_name("c10::Float8_e4m3fn") == "f8e4m3fn");
  CHECK(c10_dtype_name("c10::qint8") == "c10::qint8");  // unknown: shown as-is
}

TEST_CASE("trace: text that is not JSON is an InputError with line and column") {
  try {
    read_trace_text("{\"traceEvents\": [\n  {\"ph\": \"X\",,}\n]}", "bad.json");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::StartsWith("bad.json:2:") && Catch::Contains("not a JSON trace"));
  }
  CHECK_THROWS_AS(read_trace_text("", "empty.json"), InputError);
  CHECK_THROWS_AS(read_trace_text("\x08\x01\x12\x00garbage", "binary.json"), InputError);
  CHECK_THROWS_WITH(read_trace_text("{\"traceEvents\": [", "cut.json"),
                    Catch::Contains("cut.json:1:"));
}

TEST_CASE("trace: JSON that is not a trace names the field") {
  CHECK_THROWS_WITH(read_trace_text("{\"events\": []}", "t.json"),
                    Catch::Contains("traceEvents: missing"));
  CHECK_THROWS_WITH(read_trace_text("{\"traceEvents\": 3}", "t.json"),
                    Catch::Contains("traceEvents: expected a list"));
  CHECK_THROWS_WITH(read_trace_text("42", "t.json"), Catch::Contains("not a Chrome trace"));
  CHECK_THROWS_WITH(read_trace_text("[1]", "t.json"), Catch::Contains("traceEvents[0]"));
  CHECK_THROWS_WITH(
      read_trace_text(R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1}]})",
                      "t.json"),
      Catch::Contains("traceEvents[0].dur"));
}
