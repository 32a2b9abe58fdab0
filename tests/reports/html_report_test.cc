#include "reports/html_report.h"

#include <catch2/catch.hpp>

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
  CHECK(count(h, "<svg") == 1);   // no percentile metrics in the sample: no latency chart
  CHECK(count(h, "<rect") == 5);  // L1 skip, L3 warn, L7 fail + pass + error
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

TEST_CASE("html: findings with latency percentiles get a chart, one line each") {
  Report r = test::sample_report();
  for (const char* entity : {"/mnt/a sync_write", "/mnt/b random_read"}) {
    Finding f;
    f.code = "STOR-JITTER-LATENCY";
    f.layer = Layer::kL7;
    f.entity = entity;
    f.metrics = {{"p50", {0.2, "ms"}},
                 {"p90", {0.5, "ms"}},
                 {"p99", {4, "ms"}},
                 {"p999", {20, "ms"}},
                 {"max", {25, "ms"}}};
    r.findings.push_back(f);
  }
  Finding partial;  // without all four points: not drawn
  partial.code = "STOR-JITTER-LATENCY";
  partial.entity = "/mnt/c";
  partial.metrics = {{"p50", {0.2, "ms"}}};
  r.findings.push_back(partial);
  std::string h = render_html(r);
  CHECK(count(h, "<svg") == 2);
  CHECK(count(h, "<polyline") == 2);
  CHECK_THAT(h, Catch::Contains("0.1 ms") && Catch::Contains("100 ms"));  // the decades spanned
}
