#include "migrate/evidence.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "reports/catalog.h"
#include "reports/json_report.h"
#include "tests/support/temp_dir.h"

using hn::compat::InputError;
using namespace hn::migrate;

namespace {

const std::string kCert = std::string(HN_FIXTURE_DIR) + "/migrate/certificate.json";

std::string error_of(const std::string& text) {
  try {
    parse_certificate(text, "cert.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("evidence: a certificate's phases, metrics and findings") {
  Certificate c = parse_certificate(hn::compat::read_text_file(kCert), "cert.json");
  CHECK(c.cluster == "supernode-a");
  CHECK(c.verdict == "not_certified");
  CHECK(c.hosts == std::vector<std::string>{"node0", "node1"});
  REQUIRE(c.phases.size() == 5);
  CHECK(c.phases[2].name == "collectives");
  CHECK(c.phases[2].status == hn::reports::Status::kFail);
  CHECK(c.phases[1].layers == std::vector<std::string>{"L3", "L6"});
  REQUIRE(c.metrics.size() == 4);
  CHECK(c.metrics[0].labels.at("mount") == "/mnt/shared");
  CHECK(c.metrics[0].better == hn::reports::Better::kHigher);
  CHECK(std::isnan(c.metrics[3].value));  // null
  REQUIRE(c.findings.size() == 2);
  CHECK(c.findings[1].metrics.at("free").value == 120);
}

TEST_CASE("evidence: the smallest figure of any node, for the mount asked about") {
  Evidence e;
  e.certificate = parse_certificate(hn::compat::read_text_file(kCert), "cert.json");
  auto free = e.free_gib("/mnt/shared");
  REQUIRE(free);
  CHECK(free->value == 120);
  CHECK(free->from == "cert.json, host node1");
  auto mbps = e.write_mbps("/mnt/shared");
  REQUIRE(mbps);
  CHECK(mbps->value == 940);
  CHECK(mbps->from == "cert.json, host node1");
  CHECK(e.write_mbps("/mnt/scratch")->value == 20);
  CHECK_FALSE(e.free_gib("/mnt/other"));
  CHECK_FALSE(e.write_mbps("/mnt/other"));

  // A node report's STOR-CHECKPOINT-WRITE (node --storage-jitter --json) counts too.
  hn::reports::Report r;
  r.hostname = "node7";
  auto f =
      hn::reports::make_finding("STOR-CHECKPOINT-WRITE", hn::reports::Status::kPass, "/mnt/shared",
                                {{"path", "/mnt/shared"},
                                 {"mbps", "512"},
                                 {"mib", "64"},
                                 {"mode", "O_DIRECT"},
                                 {"warn_mbps", "-"},
                                 {"fail_mbps", "-"},
                                 {"stopped_by", "size"},
                                 {"requested_bytes", "1"},
                                 {"written_bytes", "1"},
                                 {"max_bytes_share", "1"},
                                 {"capped_by", "none"},
                                 {"of_requested", ""}});
  f.metrics["write"] = {512, "MB/s"};
  r.findings.push_back(f);
  e.node_reports.push_back(r);
  e.node_report_files.push_back("node7.json");
  CHECK(e.write_mbps("/mnt/shared")->value == 512);
  CHECK(e.write_mbps("/mnt/shared")->from == "node7.json, host node7");
}

TEST_CASE("evidence: node reports and snapshots load through their own readers") {
  hn::test::TempDir dir;
  hn::reports::Report r;
  r.tool_version = "0.1.0";
  r.command = "node";
  r.hostname = "node3";
  auto f = hn::reports::make_finding(
      "STOR-MOUNT-FREE-SPACE", hn::reports::Status::kPass, "/mnt/shared",
      {{"path", "/mnt/shared"}, {"free_gib", "42"}, {"total_gib", "100"}, {"min_gib", "10"}});
  f.metrics["free"] = {42, "GiB"};
  r.findings.push_back(f);
  std::string report = dir.write("node3.json", hn::reports::render_json(r));
  Evidence e = load_evidence(std::nullopt, {report}, {});
  CHECK(e.free_gib("/mnt/shared")->value == 42);

  std::string bad = dir.write("bad.json", "{\"schema\": \"hnprecheck.report\"}");
  CHECK_THROWS_AS(load_evidence(std::nullopt, {bad}, {}), InputError);
  CHECK_THROWS_AS(load_evidence(dir.path() + "/missing.json", {}, {}), InputError);
}

TEST_CASE("evidence: a bad certificate is refused, naming the field") {
  CHECK_THAT(error_of("not json"), Catch::StartsWith("cert.json:1:2: not valid JSON"));
  CHECK(error_of("[]") == "cert.json: expected a JSON object");
  CHECK(error_of("{\"schema\": \"hnprecheck.report\"}") ==
        "cert.json: schema: expected \"hnprecheck.certificate\" (is this a certify certificate?)");
  std::string text = hn::compat::read_text_file(kCert);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(error_of(with("\"schema_version\": 1", "\"schema_version\": 3")) ==
        "cert.json: schema_version: version 3 is not one this tool reads (it reads up to 2)");
  CHECK(error_of(with("\"verdict\": \"not_certified\"", "\"verdict\": \"ok\"")) ==
        "cert.json: verdict: expected certified, partial, not_certified or incomplete, got 'ok'");
  CHECK(error_of(with("\"value\": 1210.5", "\"value\": \"fast\"")) ==
        "cert.json: metrics[0].value: expected a number or null");
  CHECK_THAT(error_of(with("\"better\": \"higher\", \"phase\": \"storage\"},\n    {\"name\": "
                           "\"storage.write_throughput\", \"labels\": {\"host\": \"node1\"",
                           "\"better\": \"up\", \"phase\": \"storage\"},\n    {\"name\": "
                           "\"storage.write_throughput\", \"labels\": {\"host\": \"node1\"")),
             Catch::StartsWith("cert.json: metrics[0].better: "));
  CHECK(error_of(with("\"status\": \"FAIL\"", "\"status\": \"BROKEN\""))
            .rfind("cert.json: phases[2].status: ", 0) == 0);
  CHECK_THAT(error_of(with("\"code\": \"STOR-MOUNT-FREE-SPACE\", \"layer\": \"L7\"",
                           "\"code\": \"STOR-MOUNT-FREE-SPACE\", \"layer\": \"L9\"")),
             Catch::StartsWith("cert.json: findings[0]: "));
}
