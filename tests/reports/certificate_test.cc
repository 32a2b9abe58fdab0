#include "reports/certificate.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "reports/catalog.h"

using namespace hn::reports;

namespace {

Certificate sample() {
  Certificate c;
  c.tool_version = "0.1.0";
  c.cluster = "rack7";
  c.profile_source = "cluster.yaml";
  c.profile_sha256 = std::string(64, 'a');
  c.launcher = "slurm";
  c.world = 4;
  c.hosts = {{"gpu01", "gpu01", {0, 1}, std::nullopt}, {"gpu02", "gpu02", {2, 3}, std::nullopt}};
  c.started_unix_ms = 1764590400000;
  c.finished_unix_ms = 1764590412345;
  c.verdict = CertVerdict::kNotCertified;
  c.phases = {{"hosts", {"L7", "L6"}, Status::kPass, 120.5, "", ""},
              {"collectives",
               {"L3"},
               Status::kSkip,
               0,
               "COMM-LINK-TIMEOUT gpu01 -> gpu02",
               "after_failure"}};
  c.not_covered = {{"bandwidth", "every rank is on one host"}};
  Measurement m;
  m.name = "collective.busbw";
  m.labels = {{"plane", "param"}, {"op", "allreduce"}, {"bytes", "16777216"}};
  m.value = 2.5;
  m.unit = "GB/s";
  m.better = Better::kHigher;
  m.phase = "collectives";
  c.metrics = {m};
  Measurement nan = m;
  nan.labels["op"] = "alltoall";
  nan.value = std::nan("");
  c.metrics.push_back(nan);
  Finding f = make_finding("COMM-LINK-SLOW", Status::kPass, "plane param",
                           {{"plane", "param"},
                            {"links", "6"},
                            {"hosts", "3"},
                            {"fraction", "0.75"},
                            {"reference", "2"},
                            {"dismissed_text", ""}});
  f.host = "gpu01";
  c.findings = {f};
  return c;
}

}  // namespace

TEST_CASE("certificate: the documented fields, written and read back") {
  const Certificate c = sample();
  const std::string text = render_certificate(c);
  auto j = nlohmann::json::parse(text);
  CHECK(j["schema"] == "hnprecheck.certificate");
  CHECK(j["schema_version"] == 2);
  CHECK(j["tool"]["name"] == "hnprecheck");
  CHECK(j["profile"]["sha256"] == std::string(64, 'a'));
  CHECK(j["verdict"] == "not_certified");
  CHECK(j["duration_ms"] == 12345);
  CHECK(j["started"] == "2025-12-01T12:00:00.000Z");
  CHECK(j["hosts"][1]["ranks"] == nlohmann::json::array({2, 3}));
  CHECK(j["phases"][1]["skipped_because"] == "COMM-LINK-TIMEOUT gpu01 -> gpu02");
  CHECK_FALSE(j["phases"][0].contains("skipped_because"));
  CHECK(j["metrics"][0]["better"] == "higher");
  CHECK(j["metrics"][1]["value"].is_null());  // NaN has no JSON spelling
  CHECK(j["findings"][0]["host"] == "gpu01");
  CHECK(j["summary"]["pass"] == 1);
  Certificate back = certificate_from_json(nlohmann::json::parse(text), "c.json");
  CHECK(std::isnan(back.metrics[1].value));
  back.metrics[1].value = c.metrics[1].value;  // NaN != NaN
  CHECK(back.metrics[0] == c.metrics[0]);
  CHECK(back.hosts == c.hosts);
  CHECK(back.phases == c.phases);
  CHECK(back.findings == c.findings);
  CHECK(back.verdict == c.verdict);
}

TEST_CASE("certificate: a reader refuses what it cannot trust, naming the field") {
  auto j = nlohmann::json::parse(render_certificate(sample()));
  auto fails = [](nlohmann::json doc, const std::string& what) {
    try {
      certificate_from_json(doc, "c.json");
      FAIL("accepted: " << what);
    } catch (const std::runtime_error& e) {
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  auto newer = j;
  newer["schema_version"] = 3;
  fails(newer, "schema_version: is 3; this hnprecheck reads versions 1 to 2");
  auto other = j;
  other["schema"] = "hnprecheck.report";
  fails(other, "schema");
  auto verdict = j;
  verdict["verdict"] = "maybe";
  fails(verdict, "verdict");
  auto better = j;
  better["metrics"][0]["better"] = "up";
  fails(better, "metrics[0].better");
  auto ranks = j;
  ranks["hosts"][0]["ranks"][0] = "zero";
  fails(ranks, "hosts[0].ranks[0]");
  CHECK_THROWS_AS(certificate_from_json(nlohmann::json::array(), "c.json"), std::runtime_error);
}

TEST_CASE("certificate: the verdict follows the findings, and its exit code the verdict") {
  auto f = [](const char* code, Status st) {
    // Every parameter either code's templates name.
    return make_finding(code, st, "x",
                        {{"reason", "r"},
                         {"phase", "model"},
                         {"ran", "hosts"},
                         {"not_applicable", "none"},
                         {"gaps", "model (g)"}});
  };
  const Finding pass = f("CERT-COVERAGE", Status::kPass),
                partial = f("CERT-COVERAGE", Status::kWarn);
  const Finding warn = f("CERT-PHASE-SKIPPED", Status::kWarn),
                fail = f("CERT-PHASE-SKIPPED", Status::kFail);
  const Finding error = f("CERT-PHASE-SKIPPED", Status::kError);
  CHECK(verdict_for({pass}, false) == CertVerdict::kCertified);
  CHECK(verdict_for({pass, warn}, false) == CertVerdict::kCertified);
  CHECK(verdict_for({pass, warn}, true) == CertVerdict::kNotCertified);
  CHECK(verdict_for({partial}, false) == CertVerdict::kPartial);
  CHECK(verdict_for({partial}, true) == CertVerdict::kPartial);
  CHECK(verdict_for({partial, error}, false) == CertVerdict::kIncomplete);
  CHECK(verdict_for({partial, error, fail}, false) == CertVerdict::kNotCertified);
  CHECK(exit_code_of(CertVerdict::kCertified, false) == 0);
  CHECK(exit_code_of(CertVerdict::kPartial, false) == 0);
  CHECK(exit_code_of(CertVerdict::kPartial, true) == 1);
  CHECK(exit_code_of(CertVerdict::kNotCertified, false) == 1);
  CHECK(exit_code_of(CertVerdict::kIncomplete, true) == 3);
  CHECK(to_string(CertVerdict::kPartial) == "partial");
  CHECK(verdict_from_string("partial") == CertVerdict::kPartial);
  CHECK_THROWS_AS(verdict_from_string("ok"), std::invalid_argument);
}

TEST_CASE("certificate: a rank's figures on their own, written and read back") {
  Measurement m;
  m.name = "model.step_time";
  m.labels = {{"layout", "tp=2,pp=1,dp=2"}};
  m.value = 12.5;
  m.unit = "ms";
  m.better = Better::kLower;
  m.phase = "model";
  Measurement nan = m;
  nan.value = std::nan("");
  const auto back =
      measurements_from_json(nlohmann::json::parse(measurements_to_json({m, nan})), "rank 1");
  REQUIRE(back.size() == 2);
  CHECK(back[0] == m);
  CHECK(std::isnan(back[1].value));
  CHECK_THROWS_WITH(measurements_from_json(nlohmann::json::object(), "rank 1"),
                    Catch::Contains("rank 1") && Catch::Contains("array"));
  CHECK_THROWS_WITH(measurements_from_json(nlohmann::json::parse(R"([{"name": "x"}])"), "rank 2"),
                    Catch::Contains("rank 2") && Catch::Contains("metrics[0]"));
}
