#include "reports/json_report.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "tests/reports/ere_match.h"
#include "tests/reports/sample_report.h"
#include "tests/support/temp_dir.h"

using namespace hn::reports;
using nlohmann::json;

namespace {

// Enough of JSON Schema 2020-12 to check a report against docs/report.schema.json
// without a validator library. A keyword it does not know fails the test, so
// the schema cannot grow a rule this check silently ignores.
class MiniValidator {
 public:
  explicit MiniValidator(json schema) : root_(std::move(schema)) {}

  std::vector<std::string> validate(const json& doc) {
    errors_.clear();
    check(doc, root_, "$");
    return errors_;
  }

 private:
  void fail(const std::string& path, const std::string& what) {
    errors_.push_back(path + ": " + what);
  }

  static bool has_type(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    throw std::logic_error("unknown schema type " + t);
  }

  void check(const json& v, const json& s, const std::string& path) {
    static const std::set<std::string> kAnnotations = {"$schema", "$id", "$defs", "title",
                                                       "description"};
    for (const auto& [kw, arg] : s.items()) {
      if (kAnnotations.count(kw)) continue;
      if (kw == "$ref") {
        const std::string prefix = "#/$defs/";
        std::string ref = arg.get<std::string>();
        REQUIRE(ref.rfind(prefix, 0) == 0);
        check(v, root_.at("$defs").at(ref.substr(prefix.size())), path);
      } else if (kw == "type") {
        bool ok = false;
        for (const auto& t : arg.is_array() ? arg : json::array({arg}))
          ok = ok || has_type(v, t.get<std::string>());
        if (!ok) fail(path, "is " + std::string(v.type_name()) + ", schema wants " + arg.dump());
      } else if (kw == "const") {
        if (v != arg) fail(path, "is " + v.dump() + ", schema wants " + arg.dump());
      } else if (kw == "enum") {
        if (std::find(arg.begin(), arg.end(), v) == arg.end())
          fail(path, v.dump() + " not in enum");
      } else if (kw == "minimum") {
        if (v.is_number() && v.get<double>() < arg.get<double>()) fail(path, "below minimum");
      } else if (kw == "pattern") {
        if (v.is_string() && !test::ere_search(v.get<std::string>(), arg.get<std::string>()))
          fail(path, v.dump() + " does not match " + arg.get<std::string>());
      } else if (kw == "required") {
        if (!v.is_object()) continue;
        for (const auto& key : arg)
          if (!v.contains(key.get<std::string>())) fail(path, "missing " + key.get<std::string>());
      } else if (kw == "properties") {
        if (!v.is_object()) continue;
        for (const auto& [key, sub] : arg.items())
          if (v.contains(key)) check(v.at(key), sub, path + "." + key);
      } else if (kw == "additionalProperties") {
        if (!v.is_object()) continue;
        for (const auto& [key, value] : v.items())
          if (!s.contains("properties") || !s.at("properties").contains(key))
            check(value, arg, path + "." + key);
      } else if (kw == "items") {
        if (!v.is_array()) continue;
        for (size_t i = 0; i < v.size(); ++i)
          check(v[i], arg, path + "[" + std::to_string(i) + "]");
      } else {
        FAIL("schema keyword '" << kw << "' is not understood by this test's validator");
      }
    }
  }

  json root_;
  std::vector<std::string> errors_;
};

json load_schema() {
  return json::parse(hn::test::read_file(std::string(HN_SOURCE_DIR) + "/docs/report.schema.json"));
}

// Exact comparison that also treats NaN as equal to NaN.
bool same_finding(const Finding& a, const Finding& b) {
  if (a.metrics.size() != b.metrics.size()) return false;
  for (const auto& [name, m] : a.metrics) {
    auto it = b.metrics.find(name);
    if (it == b.metrics.end() || it->second.unit != m.unit) return false;
    if (std::isnan(m.value) ? !std::isnan(it->second.value) : it->second.value != m.value)
      return false;
  }
  Finding x = a, y = b;
  x.metrics.clear();
  y.metrics.clear();
  return x == y;
}

}  // namespace

TEST_CASE("JSON report round-trips findings exactly and the run's metadata") {
  Report r = test::sample_report();
  Finding odd;
  odd.code = "RUN-PROBE-TIMEOUT";
  odd.status = Status::kFail;
  odd.layer = Layer::kL5;
  odd.entity = "日本語 \"quoted\" \\ back\\slash\ttab\nnl";
  odd.message = std::string("nul\0inside", 10);
  odd.metrics = {{"tiny", {5e-324, ""}},
                 {"huge", {1.7976931348623157e308, "B"}},
                 {"neg", {-0.0, "x"}},
                 {"third", {1.0 / 3.0, "s"}},
                 {"int", {42, "count"}}};
  odd.duration_ms = 123456.789;
  r.findings.push_back(odd);

  std::string text = render_json(r);
  Report back = report_from_json(text, "r.json");
  REQUIRE(back.findings.size() == r.findings.size());
  for (size_t i = 0; i < r.findings.size(); ++i) {
    INFO("finding " << i << " " << r.findings[i].code);
    CHECK(back.findings[i] == r.findings[i]);
  }
  CHECK(std::signbit(back.findings.back().metrics.at("neg").value));
  CHECK(back.tool_version == r.tool_version);
  CHECK(back.command == r.command);
  CHECK(back.hostname == r.hostname);
  CHECK(back.profile == r.profile);
  CHECK(back.started_unix_ms == r.started_unix_ms);
  CHECK(back.finished_unix_ms == r.finished_unix_ms);
  REQUIRE(back.extra_json.size() == 1);
  CHECK(json::parse(back.extra_json.at("bench")) == json::parse(r.extra_json.at("bench")));
  // And a second trip is byte-identical.
  CHECK(render_json(back) == text);
}

TEST_CASE("rendered JSON report matches docs/report.schema.json") {
  json schema = load_schema();
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
  MiniValidator validator(schema);

  Report r = test::sample_report();
  r.findings.push_back(test::tricky_finding());
  json doc = json::parse(render_json(r));
  auto errors = validator.validate(doc);
  for (const auto& e : errors) UNSCOPED_INFO(e);
  CHECK(errors.empty());

  CHECK(doc.at("schema") == "hnprecheck.report");
  CHECK(doc.at("schema_version") == kReportSchemaVersion);
  CHECK(doc.at("tool") == json{{"name", "hnprecheck"}, {"version", "0.1.0"}});
  CHECK(doc.at("started") == "2024-05-01T12:00:00.000Z");
  CHECK(doc.at("finished") == "2024-05-01T12:00:01.500Z");
  CHECK(doc.at("duration_ms") == 1500);
  CHECK(doc.at("summary") ==
        json{{"total", 6}, {"pass", 1}, {"warn", 1}, {"fail", 2}, {"skip", 1}, {"error", 1}});
  CHECK(doc.at("findings")[0].at("layer_title") == "physical");
  CHECK(doc.at("findings")[0].at("metrics").at("mtu") ==
        json{{"value", 1500.0}, {"unit", "bytes"}});
  CHECK(doc.at("extra").at("bench").at("rows")[0].at("size") == 1024);

  // The validator itself must catch a broken document.
  doc["findings"][0].erase("status");
  doc["summary"]["pass"] = "one";
  CHECK(validator.validate(doc).size() == 2);
}

TEST_CASE("the example in docs/report-schema.md is valid and readable") {
  std::string md = hn::test::read_file(std::string(HN_SOURCE_DIR) + "/docs/report-schema.md");
  size_t begin = md.find("```json\n");
  REQUIRE(begin != std::string::npos);
  begin += 8;
  size_t end = md.find("```", begin);
  REQUIRE(end != std::string::npos);
  std::string example = md.substr(begin, end - begin);

  auto errors = MiniValidator(load_schema()).validate(json::parse(example));
  for (const auto& e : errors) UNSCOPED_INFO(e);
  CHECK(errors.empty());
  Report r = report_from_json(example, "docs/report-schema.md");
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].metrics.at("mtu") == Metric{1500, "bytes"});
  // The example is what render_json writes for the same report, byte for byte.
  CHECK(render_json(r) == example);
}

TEST_CASE("JSON report is pretty-printed with two spaces and the schema first") {
  std::string text = render_json(test::sample_report());
  CHECK(text.rfind("{\n  \"schema\": \"hnprecheck.report\",\n  \"schema_version\": 1,", 0) == 0);
  CHECK(text.back() == '\n');
}

TEST_CASE("finding_to_json survives invalid UTF-8 and non-finite metrics") {
  Finding f = test::tricky_finding();
  f.metrics["nan"] = {std::numeric_limits<double>::quiet_NaN(), "x"};
  f.metrics["inf"] = {std::numeric_limits<double>::infinity(), "x"};
  json j = finding_to_json(f);
  std::string wire;
  REQUIRE_NOTHROW(wire = j.dump());
  CHECK(j.at("metrics").at("nan").at("value").is_null());
  Finding back = finding_from_json(json::parse(wire));
  CHECK(std::isnan(back.metrics.at("nan").value));
  CHECK(std::isnan(back.metrics.at("inf").value));
  CHECK(back.message.find("bad\xEF\xBF\xBD\xEF\xBF\xBD ok") != std::string::npos);
  // Valid strings are untouched.
  Finding ok = test::sample_report().findings[0];
  CHECK(same_finding(finding_from_json(json::parse(finding_to_json(ok).dump())), ok));
}

TEST_CASE("finding_from_json names the offending field") {
  json j = finding_to_json(test::sample_report().findings[0]);
  auto broken = [&](auto edit) {
    json copy = j;
    edit(copy);
    return copy;
  };
  CHECK_THROWS_WITH(finding_from_json(broken([](json& x) { x.erase("code"); })),
                    "finding.code: is missing");
  CHECK_THROWS_WITH(finding_from_json(broken([](json& x) { x["status"] = "BAD"; })),
                    Catch::StartsWith("finding.status: unknown status 'BAD'"));
  CHECK_THROWS_WITH(finding_from_json(broken([](json& x) { x["layer"] = 7; })),
                    Catch::StartsWith("finding.layer: must be a string"));
  CHECK_THROWS_WITH(finding_from_json(broken([](json& x) { x["evidence"]["k"] = 1; })),
                    "finding.evidence.k: must be a string");
  CHECK_THROWS_WITH(finding_from_json(broken([](json& x) { x["metrics"]["mtu"].erase("unit"); })),
                    "finding.metrics.mtu.unit: is missing");
  CHECK_THROWS_WITH(finding_from_json(broken([](json& x) { x["duration_ms"] = "1"; })),
                    Catch::StartsWith("finding.duration_ms: must be a number"));
  CHECK_THROWS_AS(finding_from_json(json::array()), std::runtime_error);
}

TEST_CASE("report_from_json rejects bad documents naming the source and the field") {
  json good = json::parse(render_json(test::sample_report()));
  auto read = [](const json& doc) { return report_from_json(doc.dump(), "base.json"); };
  auto broken = [&](auto edit) {
    json copy = good;
    edit(copy);
    return copy;
  };

  CHECK_THROWS_WITH(report_from_json("{not json", "base.json"),
                    Catch::StartsWith("base.json: not valid JSON"));
  CHECK_THROWS_WITH(report_from_json("[]", "base.json"),
                    Catch::StartsWith("base.json: document: must be an object"));
  CHECK_THROWS_WITH(read(broken([](json& x) { x["schema"] = "other"; })),
                    Catch::StartsWith("base.json: schema: is 'other'"));
  CHECK_THROWS_WITH(read(broken([](json& x) { x["schema_version"] = 2; })),
                    Catch::StartsWith("base.json: schema_version: is 2"));
  CHECK_THROWS_WITH(read(broken([](json& x) { x["schema_version"] = "1"; })),
                    "base.json: schema_version: must be an integer");
  CHECK_THROWS_WITH(read(broken([](json& x) { x.erase("host"); })), "base.json: host: is missing");
  CHECK_THROWS_WITH(read(broken([](json& x) { x["tool"].erase("version"); })),
                    "base.json: tool.version: is missing");
  CHECK_THROWS_WITH(read(broken([](json& x) { x["started"] = "2024-05-01 12:00"; })),
                    Catch::StartsWith("base.json: started: '2024-05-01 12:00' is not"));
  CHECK_THROWS_WITH(read(broken([](json& x) { x["findings"][3]["status"] = "OK"; })),
                    Catch::StartsWith("base.json: findings[3].status: unknown status 'OK'"));
  CHECK_THROWS_WITH(read(broken([](json& x) { x["findings"][1] = 5; })),
                    Catch::StartsWith("base.json: findings[1]: must be an object"));
  CHECK_THROWS_WITH(read(broken([](json& x) { x["extra"] = json::array(); })),
                    "base.json: extra: must be an object");
}

TEST_CASE("report_from_json ignores unknown keys (additive schema changes)") {
  json doc = json::parse(render_json(test::sample_report()));
  doc["added_later"] = {{"x", 1}};
  doc["findings"][0]["severity_hint"] = "high";
  Report r = report_from_json(doc.dump(), "new.json");
  CHECK(r.findings == test::sample_report().findings);
}

TEST_CASE("render_json rejects extra data that is not JSON") {
  Report r = test::sample_report();
  r.extra_json["bench"] = "{broken";
  CHECK_THROWS_WITH(render_json(r), Catch::Contains("'bench'"));
}
