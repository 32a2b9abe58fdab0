#include "reports/ctrf_report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/reports/ere_match.h"
#include "tests/reports/sample_report.h"

using namespace hn::reports;
using nlohmann::json;

namespace {
std::set<std::string> keys(const json& obj) {
  std::set<std::string> k;
  for (const auto& [key, value] : obj.items()) k.insert(key);
  return k;
}
}  // namespace

TEST_CASE("CTRF report uses only the top-level keys the spec allows") {
  json doc = json::parse(render_ctrf(test::sample_report()));
  const std::set<std::string> allowed = {"reportFormat", "specVersion", "reportId", "timestamp",
                                         "generatedBy",  "results",     "extra",    "baseline"};
  for (const auto& k : keys(doc)) {
    INFO("top-level key " << k);
    CHECK(allowed.count(k) == 1);
  }
  CHECK(doc.at("reportFormat") == "CTRF");
  CHECK(doc.at("specVersion") == "1.0.0");
  CHECK(doc.at("generatedBy") == "hnprecheck 0.1.0");
  CHECK(doc.at("timestamp") == "2024-05-01T12:00:01.500Z");
  CHECK(keys(doc.at("results")) == std::set<std::string>{"tool", "summary", "tests"});
  CHECK(doc.at("results").at("tool") == json{{"name", "hnprecheck"}, {"version", "0.1.0"}});
  CHECK(doc.at("extra") == json{{"command", "preflight"}, {"host", "node0"}, {"profile", "demo"}});
}

TEST_CASE("CTRF reportId is a fresh random UUID") {
  const std::string uuid = "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$";
  std::string a = json::parse(render_ctrf(test::sample_report())).at("reportId");
  std::string b = json::parse(render_ctrf(test::sample_report())).at("reportId");
  CHECK(test::ere_search(a, uuid));
  CHECK(test::ere_search(b, uuid));
  CHECK(a != b);
}

TEST_CASE("CTRF summary counts add up and statuses are valid") {
  Report r = test::sample_report();
  r.findings.push_back(test::tricky_finding());
  json doc = json::parse(render_ctrf(r));
  const json& summary = doc.at("results").at("summary");
  CHECK(keys(summary) == std::set<std::string>{"tests", "passed", "failed", "skipped", "pending",
                                               "other", "start", "stop"});
  CHECK(summary.at("tests") == 6);
  CHECK(summary.at("passed") == 1);
  CHECK(summary.at("failed") == 3);  // two FAIL and one ERROR
  CHECK(summary.at("skipped") == 1);
  CHECK(summary.at("pending") == 0);
  CHECK(summary.at("other") == 1);
  CHECK(summary.at("start") == 1714564800000);
  CHECK(summary.at("stop") == 1714564801500);

  const json& tests = doc.at("results").at("tests");
  REQUIRE(tests.size() == 6);
  std::map<std::string, int> by_status;
  const std::set<std::string> valid = {"passed", "failed", "skipped", "pending", "other"};
  // The properties CTRF 1.0.0 allows on a test (its schema forbids others).
  const std::set<std::string> test_keys = {
      "id",      "name",     "status",   "duration", "start",         "stop",        "suite",
      "message", "trace",    "snippet",  "ai",       "line",          "rawStatus",   "tags",
      "labels",  "type",     "filePath", "retries",  "retryAttempts", "flaky",       "stdout",
      "stderr",  "threadId", "browser",  "device",   "screenshot",    "attachments", "parameters",
      "steps",   "insights", "extra"};
  for (const auto& t : tests) {
    INFO(t.dump());
    for (const auto& k : keys(t)) CHECK(test_keys.count(k) == 1);
    std::string status = t.at("status");
    CHECK(valid.count(status) == 1);
    ++by_status[status];
    CHECK(t.at("name").is_string());
    CHECK(t.at("duration").is_number_integer());
    CHECK(t.at("message").is_string());
    // CTRF 1.0.0: suite is the hierarchy, a non-empty array of strings.
    REQUIRE(t.at("suite").is_array());
    CHECK(t.at("suite").size() == 1);
    CHECK(keys(t.at("extra")) ==
          std::set<std::string>{"code", "layer", "entity", "remediation", "evidence", "metrics"});
  }
  int sum = 0;
  for (const char* s : {"passed", "failed", "skipped", "pending", "other"}) {
    CHECK(by_status[s] == summary.at(s).get<int>());
    sum += summary.at(s).get<int>();
  }
  CHECK(sum == summary.at("tests").get<int>());
}

TEST_CASE("CTRF tests carry our status, code, layer and evidence") {
  json tests = json::parse(render_ctrf(test::sample_report())).at("results").at("tests");
  // sorted_for_report order: L1 SKIP, L3 WARN, L7 ERROR, L7 FAIL, L7 PASS.
  CHECK(tests[0].at("rawStatus") == "SKIP");
  CHECK(tests[1].at("status") == "other");
  CHECK(tests[1].at("rawStatus") == "WARN");
  CHECK(tests[1].at("duration") == 2501);
  CHECK(tests[2].at("status") == "failed");
  CHECK(tests[2].at("rawStatus") == "ERROR");
  const json& mtu = tests[3];
  CHECK(mtu.at("name") == "HW-NIC-MTU eth1");
  CHECK(mtu.at("status") == "failed");
  CHECK(mtu.at("rawStatus") == "FAIL");
  CHECK(mtu.at("duration") == 1);
  CHECK(mtu.at("suite") == json{"L7 physical"});
  CHECK(mtu.at("tags") == json{"HW-NIC-MTU", "L7"});
  CHECK(mtu.at("message") == "eth1 MTU is 1500, plane param0 expects 9000");
  CHECK(mtu.at("extra").at("remediation") == "Set it with `ip link set eth1 mtu 9000`");
  CHECK(mtu.at("extra").at("evidence").at("source") == "/sys/class/net/eth1/mtu");
  CHECK(mtu.at("extra").at("metrics").at("mtu") == json{{"value", 1500.0}, {"unit", "bytes"}});
  CHECK(tests[4].at("status") == "passed");
}

TEST_CASE("ctrf_status maps every status") {
  CHECK(ctrf_status(Status::kPass) == "passed");
  CHECK(ctrf_status(Status::kFail) == "failed");
  CHECK(ctrf_status(Status::kError) == "failed");
  CHECK(ctrf_status(Status::kSkip) == "skipped");
  CHECK(ctrf_status(Status::kWarn) == "other");
}

TEST_CASE("CTRF baseline: the spec's keys only, reportId required") {
  CtrfBaseline b{"0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f",
                 "2026-12-01T10:00:00.000Z",
                 "base.json",
                 {{"runs", "10"}}};
  json doc = json::parse(render_ctrf(test::sample_report(), &b));
  CHECK(doc.at("baseline") == json{{"reportId", "0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f"},
                                   {"timestamp", "2026-12-01T10:00:00.000Z"},
                                   {"source", "base.json"},
                                   {"extra", {{"runs", "10"}}}});
  CtrfBaseline bare{"0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f", "", "", {}};
  CHECK(json::parse(render_ctrf(test::sample_report(), &bare)).at("baseline") ==
        json{{"reportId", "0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f"}});
  CHECK_FALSE(json::parse(render_ctrf(test::sample_report())).contains("baseline"));
}
