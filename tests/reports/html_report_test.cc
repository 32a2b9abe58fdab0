#include "reports/html_report.h"

#include <catch2/catch.hpp>
#include <set>

#include "reports/svg_chart.h"

#include "tests/reports/sample_report.h"

using namespace hn::reports;

namespace {
int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("html: summary, a bar per layer, and one table per layer") {
  std::string h = render_html(test::sample_report());
  CHECK_THAT(h, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(h, Catch::Contains("<title>hnprecheck preflight: node0</title>"));
  CHECK_THAT(h, Catch::Contains("<strong>5 checks:</strong>"));
  CHECK(count(h, "<svg") == 1);  // no percentile metrics in the sample: no latency chart
  // L1 skip, L3 warn, L7 fail + pass + error: one segment each, and a legend
  // entry per status.
  CHECK(count(h, "<rect data-series=") == 5);
  CHECK(count(h, "<g data-legend=") == 5);
  for (const char* st : {"PASS", "WARN", "FAIL", "SKIP", "ERROR"})
    CHECK_THAT(h, Catch::Contains(std::string("<g data-legend=\"") + st + "\">"));
  CHECK(count(h, "<table>") == 3);
  CHECK(h.find("HW-NIC-MTU") < h.find("HW-NIC-PRESENT"));  // problems first
  CHECK_THAT(h, Catch::Contains("<dt>mtu</dt><dd>1500 bytes</dd>"));
  CHECK_THAT(h, Catch::EndsWith("</html>\n"));
}

TEST_CASE("html: text is escaped, never markup") {
  Report r = test::sample_report();
  r.findings[0].message = "<script>alert('x')</script> & \"more\"";
  r.hostname = "<b>";
  std::string h = render_html(r);
  CHECK(h.find("<script>") == std::string::npos);
  CHECK_THAT(h, Catch::Contains("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; "
                                "&quot;more&quot;"));
  CHECK_THAT(h, Catch::Contains("<title>hnprecheck preflight: &lt;b&gt;</title>"));
}

namespace {

// The storage jitter findings of one workload, as probes/storage/jitter_check
// makes them: the summary and one finding per configured limit, all with the
// workload's curve and the same entity.
std::vector<Finding> workload(const std::string& path, const std::string& name, double p50,
                              Status p999_status = Status::kPass) {
  std::map<std::string, Metric> metrics = {{"p50", {p50, "ms"}},
                                           {"p90", {p50 * 2, "ms"}},
                                           {"p99", {p50 * 8, "ms"}},
                                           {"p999", {p50 * 30, "ms"}},
                                           {"max", {p50 * 40, "ms"}}};
  std::vector<Finding> out;
  for (const char* code : {"STOR-JITTER-LATENCY", "STOR-JITTER-P99", "STOR-JITTER-P999"}) {
    Finding f;
    f.code = code;
    f.layer = Layer::kL7;
    f.entity = path + " " + name;
    f.metrics = metrics;
    f.evidence = {{"path", path}, {"workload", name}};
    if (f.code == "STOR-JITTER-P99")
      f.evidence.merge(std::map<std::string, std::string>{{"warn_ms", "20"}, {"fail_ms", "100"}});
    if (f.code == "STOR-JITTER-P999") {
      f.evidence.merge(std::map<std::string, std::string>{{"warn_ms", "50"}, {"fail_ms", "none"}});
      f.status = p999_status;
    }
    out.push_back(f);
  }
  return out;
}

// The value of `attr` in every tag that has `marker` (e.g. data-series=).
std::vector<std::string> attrs(const std::string& h, const std::string& marker,
                               const std::string& attr) {
  std::vector<std::string> out;
  for (auto p = h.find(marker); p != std::string::npos; p = h.find(marker, p + 1)) {
    auto open = h.rfind('<', p), close = h.find('>', p);
    std::string tag = h.substr(open, close - open);
    auto a = tag.find(" " + attr + "=\"");
    if (a == std::string::npos) continue;
    a += attr.size() + 3;
    out.push_back(tag.substr(a, tag.find('"', a) - a));
  }
  return out;
}

std::string latency_part(const std::string& h) {
  auto at = h.find("<h2>Storage latency percentiles</h2>");
  REQUIRE(at != std::string::npos);
  return h.substr(at, h.find("<h2>L", at) - at);
}

}  // namespace

TEST_CASE("html: one line per workload, each in its own colour, named in the legend") {
  Report r = test::sample_report();
  for (auto [name, p50] : {std::pair{"sync_write", 0.5}, {"random_read", 0.1}, {"metadata", 2.0}})
    for (auto& f : workload("/mnt/shared", name, p50,
                            name == std::string("metadata") ? Status::kWarn : Status::kPass))
      r.findings.push_back(f);
  const std::string h = latency_part(render_html(r));
  // Nine findings, three curves: the defect was nine legend entries
  // and three green lines.
  auto series = attrs(h, "<g data-series=", "data-series");
  CHECK(series == std::vector<std::string>{"sync_write", "random_read", "metadata"});
  auto colours = attrs(h, "<g data-series=", "stroke");
  REQUIRE(colours.size() == 3);
  CHECK(std::set<std::string>(colours.begin(), colours.end()).size() == 3);
  CHECK(count(h, "<polyline") == 3);
  CHECK(attrs(h, "<g data-legend=", "data-legend") == series);
  // Each legend swatch is its line's colour.
  CHECK(attrs(h, "<g data-legend=", "data-legend").size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK_THAT(h, Catch::Contains("<g data-legend=\"" + series[i] + "\"><rect") &&
                      Catch::Contains("fill=\"" + colours[i] + "\"/><text"));
  CHECK_THAT(h, Catch::Contains(">metadata <tspan style=\"fill:#ef6c00\">WARN</tspan>"));
  CHECK_THAT(h, Catch::Contains("<h3>/mnt/shared</h3>"));
  // p99: warn 20, fail 100 (two bands); p99.9: warn 50, no fail limit (one).
  CHECK(count(h, "data-band=\"warn\"") == 2);
  CHECK(count(h, "data-band=\"fail\"") == 1);
  CHECK_THAT(h, Catch::Contains("<title>warn above 20 ms at p99</title>"));
  CHECK_THAT(h, Catch::Contains("<title>fail above 100 ms at p99</title>"));
  CHECK_THAT(h, Catch::Contains("<title>warn above 50 ms at p99.9</title>"));
  CHECK_THAT(
      h, Catch::Contains(">above the warn limit<") && Catch::Contains(">above the fail limit<"));
  CHECK_THAT(h, Catch::Contains("0.1 ms") && Catch::Contains("100 ms"));  // the decades spanned
}

TEST_CASE("html: one latency chart per mount and no line for a finding without all four points") {
  Report r = test::sample_report();
  for (auto& f : workload("/mnt/a", "sync_write", 0.2)) r.findings.push_back(f);
  for (auto& f : workload("/mnt/b", "sync_write", 0.3)) r.findings.push_back(f);
  Finding partial;
  partial.code = "STOR-JITTER-LATENCY";
  partial.entity = "/mnt/c random_read";
  partial.metrics = {{"p50", {0.2, "ms"}}};
  r.findings.push_back(partial);
  const std::string h = latency_part(render_html(r));
  CHECK(count(h, "<svg class=\"chart\"") == 2);
  CHECK_THAT(h, Catch::Contains("<h3>/mnt/a</h3>") && Catch::Contains("<h3>/mnt/b</h3>"));
  CHECK(h.find("/mnt/c") == std::string::npos);
  CHECK(count(h, "<g data-series=\"sync_write\"") == 2);
}

TEST_CASE("html: series without a path are named by their entity") {
  Report r = test::sample_report();
  for (const char* entity : {"/mnt/a sync_write", "/mnt/b random_read"}) {
    Finding f;
    f.code = "X-LATENCY";
    f.entity = entity;
    f.metrics = {
        {"p50", {0.2, "ms"}}, {"p90", {0.5, "ms"}}, {"p99", {4, "ms"}}, {"p999", {20, "ms"}}};
    r.findings.push_back(f);
  }
  const std::string h = latency_part(render_html(r));
  CHECK(attrs(h, "<g data-series=", "data-series") ==
        std::vector<std::string>{"/mnt/a sync_write", "/mnt/b random_read"});
  CHECK(count(h, "data-band=") == 0);
}

TEST_CASE("svg: series colours stay distinct past the palette") {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 64; ++i) CHECK(seen.insert(svg::series_colour(i)).second);
}
