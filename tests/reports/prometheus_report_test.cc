#include "reports/prometheus_report.h"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/reports/sample_report.h"

using namespace hn::reports;

namespace {

// Every line of the text exposition format 0.0.4: a HELP or TYPE comment, or
// name{label="value",...} number. Returns the samples as "name{labels}" ->
// value text; fails the test on any other line or on a repeated series.
std::map<std::string, std::string> parse_exposition(const std::string& text) {
  static const std::regex help("^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$");
  static const std::regex sample(
      "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\\n]|\\\\[\\\\\"n])*\""
      "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\\n]|\\\\[\\\\\"n])*\")*)\\})? "
      "(-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)$");
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    INFO(line);
    if (std::regex_match(line, help)) continue;
    REQUIRE(std::regex_match(line, m, sample));
    std::string series = line.substr(0, line.rfind(' '));
    CHECK(out.count(series) == 0);
    out[series] = m[m.size() - 1];
  }
  return out;
}

}  // namespace

TEST_CASE("prometheus: every line is valid exposition text and no series repeats") {
  auto samples = parse_exposition(render_prometheus(test::sample_report()));
  CHECK(samples.at("hnprecheck_run_info{command=\"preflight\",host=\"node0\",profile=\"demo\","
                   "version=\"0.1.0\"}") == "1");
  CHECK(samples.at("hnprecheck_last_run_timestamp_seconds{command=\"preflight\"}") ==
        "1714564801.500");
  CHECK(samples.at("hnprecheck_run_duration_seconds{command=\"preflight\"}") == "1.500");
  CHECK(samples.at("hnprecheck_findings{command=\"preflight\",status=\"fail\"}") == "1");
  CHECK(samples.at("hnprecheck_findings{command=\"preflight\",status=\"pass\"}") == "1");
  CHECK(samples.at("hnprecheck_findings{command=\"preflight\",status=\"warn\"}") == "1");
  CHECK(samples.at("hnprecheck_findings{command=\"preflight\",status=\"skip\"}") == "1");
  CHECK(samples.at("hnprecheck_findings{command=\"preflight\",status=\"error\"}") == "1");
  CHECK(samples.at("hnprecheck_check_status{command=\"preflight\",code=\"HW-NIC-MTU\",layer=\"L7\","
                   "entity=\"eth1\"}") == "2");
  CHECK(samples.at("hnprecheck_check_status{command=\"preflight\",code=\"HW-TEMP\",layer=\"L7\","
                   "entity=\"cpu0\"}") == "4");
  CHECK(samples.at("hnprecheck_finding_metric{command=\"preflight\",code=\"HW-NIC-MTU\",entity="
                   "\"eth1\",metric=\"mtu\","
                   "unit=\"bytes\"}") == "1500");
  CHECK(std::stod(samples.at("hnprecheck_finding_metric{command=\"preflight\",code=\"COMM-LINK\","
                             "entity=\"node0-node1\","
                             "metric=\"p99\",unit=\"ms\"}")) == 0.1 + 0.2);  // round-trips
}

TEST_CASE("prometheus: label values are escaped and a repeated check keeps the worst status") {
  Report r = test::sample_report();
  Finding weird = r.findings.front();
  weird.entity = "a \"quoted\" \\ path\nwith a newline";
  Finding bad_utf8 = weird;
  bad_utf8.entity = "mnt\xff";
  weird.status = Status::kPass;
  r.findings.push_back(weird);
  Finding again = weird;
  again.status = Status::kWarn;
  r.findings.push_back(again);
  r.findings.push_back(bad_utf8);
  auto samples = parse_exposition(render_prometheus(r));
  CHECK(samples.count("hnprecheck_check_status{command=\"preflight\",code=\"HW-NIC-MTU\","
                      "layer=\"L7\",entity=\"mnt\xEF\xBF\xBD\"}") == 1);  // U+FFFD
  CHECK(samples.at("hnprecheck_check_status{command=\"preflight\",code=\"HW-NIC-MTU\",layer=\"L7\","
                   "entity=\"a "
                   "\\\"quoted\\\" \\\\ path\\nwith a newline\"}") == "1");
}

TEST_CASE("prometheus: the status values are fixed") {
  CHECK(prometheus_status_value(Status::kPass) == 0);
  CHECK(prometheus_status_value(Status::kWarn) == 1);
  CHECK(prometheus_status_value(Status::kFail) == 2);
  CHECK(prometheus_status_value(Status::kSkip) == 3);
  CHECK(prometheus_status_value(Status::kError) == 4);
}
