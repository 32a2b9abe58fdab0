// The torch.profiler trace reader on small hand-written traces in kineto's
// Chrome-trace shape (tests/fixtures/ops/train_step_trace.json).
#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/trace_reader.h"
#include "tests/support/bounded_child.h"

using namespace hn::compat;

namespace {
const std::string kTrace = std::string(HN_FIXTURE_DIR) + "/ops/train_step_trace.json";

const OpOccurrence& find(const OpInventory& inv, const std::string& op) {
  for (const auto& o : inv.ops)
    if (o.op == op) return o;
  FAIL("no " << op);
  throw;
}

// One cpu_op complete event on thread `tid`, f32 with a 2-D first input.
struct Call {
  std::string name;
  int tid;
  double ts, dur;
};

std::string trace_of(const std::vector<Call>& calls) {
  std::string s = "{\"traceEvents\": [";
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    s += std::string(i ? ",\n" : "") + R"({"ph":"X","cat":"cpu_op","name":")" + c.name +
         R"(","pid":1,"tid":)" + std::to_string(c.tid) + R"(,"ts":)" + std::to_string(c.ts) +
         R"(,"dur":)" + std::to_string(c.dur) +
         R"(,"args":{"Input Dims":[[4,4]],"Input type":["float"]}})";
  }
  return s + "]}";
}

// The names of an occurrence's nested occurrences, in report order.
std::vector<std::string> nested(const OpInventory& inv, const OpOccurrence& o) {
  std::vector<std::string> out;
  for (std::size_t c : o.children) {
    REQUIRE(c < inv.ops.size());
    out.push_back(inv.ops[c].op);
  }
  return out;
}

using Names = std::vector<std::string>;
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
  // aten::linear is a composite: aten::t and aten::addmm ran inside it.
  CHECK(nested(inv, linear) == Names{"aten::t", "aten::addmm"});
  CHECK(addmm.children.empty());
  CHECK(mm.children.empty());  // the other thread's calls overlap linear in time only
  CHECK_THAT(inv.detail, Catch::Contains("7 aten:: (1 with aten:: ops nested inside)"));
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

TEST_CASE("trace nesting: depth 3, siblings inside a parent, and siblings that touch") {
  // linear [0, 100) holds t, matmul and add; matmul [10, 80) holds mm; relu
  // starts exactly when linear ends, so it is linear's sibling, not its child.
  auto inv = read_trace_text(trace_of({{"aten::linear", 1, 0, 100},
                                       {"aten::t", 1, 1, 5},
                                       {"aten::matmul", 1, 10, 70},
                                       {"aten::mm", 1, 12, 60},
                                       {"aten::add", 1, 85, 10},
                                       {"aten::relu", 1, 100, 20}}),
                             "deep.json");
  REQUIRE(inv.ops.size() == 6);
  CHECK(nested(inv, find(inv, "aten::linear")) == Names{"aten::t", "aten::matmul", "aten::add"});
  CHECK(nested(inv, find(inv, "aten::matmul")) == Names{"aten::mm"});
  for (const char* leaf : {"aten::t", "aten::mm", "aten::add", "aten::relu"}) {
    INFO(leaf);
    CHECK(find(inv, leaf).children.empty());
  }
  // Self time still subtracts only the directly nested calls.
  CHECK(find(inv, "aten::linear").self_us == 100 - 5 - 70 - 10);
  CHECK(find(inv, "aten::matmul").self_us == 70 - 60);
}

TEST_CASE("trace nesting: depth 2 through a cpu_op that is not aten::, and per thread") {
  // An autograd node between aten::foo and aten::mm is looked through; the
  // same interval on another thread is not nested.
  auto inv =
      read_trace_text(trace_of({{"aten::foo", 1, 0, 50},
                                {"autograd::engine::evaluate_function: MmBackward0", 1, 5, 40},
                                {"aten::mm", 1, 10, 20},
                                {"aten::sub", 2, 5, 10}}),
                      "through.json");
  REQUIRE(inv.ops.size() == 3);
  CHECK(nested(inv, find(inv, "aten::foo")) == Names{"aten::mm"});
  CHECK(find(inv, "aten::sub").children.empty());
}

TEST_CASE("trace nesting: calls of one op with different nested ops stay apart") {
  // Two calls of aten::linear, one as t + addmm, one as t + mm, and repeated
  // identical calls that group into one occurrence with their count.
  auto inv = read_trace_text(trace_of({{"aten::linear", 1, 0, 100},
                                       {"aten::t", 1, 1, 5},
                                       {"aten::addmm", 1, 10, 80},
                                       {"aten::linear", 1, 200, 100},
                                       {"aten::t", 1, 201, 5},
                                       {"aten::mm", 1, 210, 80},
                                       {"aten::linear", 1, 400, 100},
                                       {"aten::t", 1, 401, 5},
                                       {"aten::mm", 1, 410, 80}}),
                             "two.json");
  std::vector<const OpOccurrence*> linears;
  for (const auto& o : inv.ops)
    if (o.op == "aten::linear") linears.push_back(&o);
  REQUIRE(linears.size() == 2);
  CHECK(linears[0]->count == 1);
  CHECK(nested(inv, *linears[0]) == Names{"aten::t", "aten::addmm"});
  CHECK(linears[1]->count == 2);
  CHECK(nested(inv, *linears[1]) == Names{"aten::t", "aten::mm"});
  CHECK(find(inv, "aten::t").count == 3);  // one leaf occurrence shared by all three
}

TEST_CASE("trace memory follows the cpu_op events, not the file (64 MiB of empty events)") {
  // A document tree of this trace took 1.7 GB (9 to 27 times the JSON); the
  // reader now keeps only the cpu_op events' fields. The child holds the text
  // (64 MiB) and the test binary: nothing in proportion to the event count.
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  std::string text = "{\"traceEvents\": [";
  text.reserve(64 * kMiB);
  while (text.size() + 16 < 64 * kMiB) text += "{},{},{},";
  text += "{}]}";
  auto o = hn::test::run_bounded(
      [&] {
        OpInventory inv = read_trace_text(text, "t.json");
        return inv.ops.empty() && inv.detail.find(" 0 cpu_op") != std::string::npos ? 0 : 1;
      },
      std::chrono::seconds(60), std::size_t{2} << 30);
  INFO(o.describe());
  CHECK(o.finished);
  CHECK(o.exit_code == 0);
  // Twice the text: nlohmann 3.11's lexer keeps the characters of a run of
  // punctuation (token_string, reset only when a scalar starts), and these
  // events have no scalar.
  CHECK(o.peak_rss_kib < 2 * 64 * 1024 + 64 * 1024);
}
