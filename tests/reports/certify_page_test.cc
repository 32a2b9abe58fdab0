#include "reports/certify_page.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "reports/catalog.h"

using namespace hn::reports;

namespace {

Measurement metric(const std::string& name, std::map<std::string, std::string> labels,
                   double value, const std::string& unit) {
  Measurement m;
  m.name = name;
  m.labels = std::move(labels);
  m.value = value;
  m.unit = unit;
  return m;
}

Certificate sample() {
  Certificate c;
  c.hosts = {{"host0", "host0", {0}, std::nullopt}, {"host1", "host1", {1}, std::nullopt}};
  c.started_unix_ms = 0;
  c.finished_unix_ms = 2500;
  c.verdict = CertVerdict::kNotCertified;
  c.phases = {{"hosts", {"L7", "L6"}, Status::kPass, 120, "", ""},
              {"storage", {"L7"}, Status::kSkip, 0, "the profile declares no storage.mounts",
               "not_applicable"}};
  for (const char* op : {"allreduce", "alltoall"})
    for (double b : {65536.0, 1048576.0})
      c.metrics.push_back(metric("collective.busbw",
                                 {{"plane", "param"}, {"op", op}, {"bytes", std::to_string(static_cast<long>(b))}},
                                 b / 1e6, "GB/s"));
  c.metrics.push_back(metric("nic.tx_bytes", {{"host", "host0"}, {"plane", "param"}, {"nic", "eth0"}},
                             22.4e6, "bytes"));
  c.metrics.push_back(metric("nic.rx_bytes", {{"host", "host0"}, {"plane", "param"}, {"nic", "eth0"}},
                             100, "bytes"));
  for (const char* cond : {"alone", "under_load"})
    c.metrics.push_back(metric("storage.p99",
                               {{"mount", "/mnt/shared"}, {"workload", "sync_write"},
                                {"condition", cond}, {"host", "all"}},
                               cond[0] == 'a' ? 1.5 : 4.5, "ms"));
  Finding f = make_finding("NET-TRAFFIC-PLANE", Status::kFail, "host0 eth1",
                           {{"plane", "param"}, {"share", "0.0"}, {"expected", "22.4 MB"},
                            {"plane_nic", "eth1"}, {"carrier", "eth0"},
                            {"carrier_bytes", "22.4 MB"}, {"address", "10.10.0.1"}});
  f.host = "host0";
  c.findings = {f};
  return c;
}

}  // namespace

TEST_CASE("certify summary: phases, busbw by size, bytes per NIC, verdict") {
  const std::string s = render_certify_summary(sample(), 1, false);
  CHECK_THAT(s, Catch::Contains("  hosts       L7 L6  PASS  120 ms"));
  CHECK_THAT(s, Catch::Contains("the profile declares no storage.mounts"));
  CHECK_THAT(s, Catch::Contains("busbw (GB/s) by size, plane param"));
  CHECK_THAT(s, Catch::Contains("64K"));
  CHECK_THAT(s, Catch::Contains("1M"));
  CHECK_THAT(s, Catch::Contains("bytes per NIC during the traffic proof, plane param"));
  CHECK_THAT(s, Catch::Contains("tx 22.4 MB"));
  CHECK_THAT(s, Catch::Contains("verdict: not certified (exit 1): 2 host(s), 2 rank(s), 2.5 s"));
  CHECK(s.find('\033') == std::string::npos);
  CHECK(render_certify_summary(sample(), 1, true).find("\033[31m") != std::string::npos);
}

TEST_CASE("certify page: host x layer, busbw chart, NIC bytes, storage alone vs under load") {
  Report r;
  r.command = "certify";
  r.hostname = "host0";
  r.findings = sample().findings;
  const std::string page = render_certify_html(r, sample());
  CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(page, Catch::Contains("<h2>Hosts and layers (worst status)</h2>"));
  CHECK_THAT(page, Catch::Contains("busbw by size, plane param"));
  CHECK_THAT(page, Catch::Contains("<polyline"));
  // The chart contract (docs/html-charts.md): each collective a series with
  // its legend entry.
  CHECK_THAT(page, Catch::Contains("<svg class=\"chart\""));
  CHECK_THAT(page, Catch::Contains("data-series=\"allreduce\""));
  CHECK_THAT(page, Catch::Contains("data-legend=\"allreduce\""));
  CHECK_THAT(page, Catch::Contains("Bytes per NIC during the traffic proof, plane param"));
  CHECK_THAT(page, Catch::Contains("<td>under_load</td>"));
  CHECK_THAT(page, Catch::Contains("<td>4.500</td>"));
  // The sections come before the generic findings.
  CHECK(page.find("Hosts and layers") < page.find("Findings per layer"));
  CHECK_THAT(page, Catch::EndsWith("</html>\n"));
}

TEST_CASE("certify extra JSON: verdict, phases, hosts") {
  auto j = nlohmann::json::parse(certify_extra_json(sample()));
  CHECK(j["verdict"] == "not_certified");
  CHECK(j["phases"][1]["skipped_because"] == "the profile declares no storage.mounts");
  CHECK(j["hosts"][0]["name"] == "host0");
}
