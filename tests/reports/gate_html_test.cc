#include "reports/gate_html.h"

#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "reports/catalog.h"

using namespace hn::reports;

namespace {

int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

GatePage page() {
  GatePage p;
  p.title = "1 run(s) vs baseline base.json";
  p.setup = {"rules: defaults"};
  GatePage::Row bus{"bench.busbw{bytes=1048576}",
                    "GB/s",
                    true,
                    10,
                    0.15,
                    9,
                    11,
                    10,
                    {9.8, 10, 10.2},
                    8,
                    "regressed"};
  GatePage::Row lat{
      "bench.time{bytes=8}", "us", false, 5, 0.1, 4.5, 5.5, 10, {4.9, 5.1}, 4, "improved"};
  GatePage::Row ok{
      "storage.p99{mount=/mnt/shared}", "ms", false, 2, 0.1, 1.8, 2.2, 5, {2}, 2.1, "within"};
  GatePage::Row zero{"bench.wrong{bytes=8}", "count", false, 0, 0, 0, 0, 5, {0}, 0, "within"};
  p.rows = {ok, bus, lat, zero};
  return p;
}

Report report() {
  Report r;
  r.command = "gate";
  r.findings.push_back(make_finding("GATE-METRIC", Status::kFail, "bench.busbw{bytes=1048576}",
                                    {{"name", "bench.busbw"},
                                     {"value", "8"},
                                     {"unit", "GB/s"},
                                     {"change", "-20%"},
                                     {"centre", "10"},
                                     {"sense", "higher is better"},
                                     {"edge", "9"},
                                     {"basis", "min change 10%"},
                                     {"scale", "log"},
                                     {"detectable", "a drop of 12%"},
                                     {"confirm", ""},
                                     {"n", "3"},
                                     {"runs", "1"},
                                     {"rule", "defaults"}}));
  return r;
}

}  // namespace

TEST_CASE("gate html: a row per charted figure, its band, each baseline run and the new value") {
  const std::string h = render_gate_html(report(), page());
  CHECK_THAT(h, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(h, Catch::Contains("BLOCKED: 1 regression(s)"));
  // Three charted rows (the zero-centre one is only in the table): a band
  // rect and a dot each, one tick per baseline value.
  CHECK(count(h, "<title>band ") == 3);
  CHECK(count(h, "<circle cx=") == 3);
  CHECK(count(h, "y2=") == 5 + 3 + 2 + 1);  // five axis lines, then one tick per baseline value
  CHECK_THAT(h, Catch::Contains("1 figure(s) with a baseline centre of 0"));
  CHECK(count(h, "<tr><td>bench.") == 3);
  // Better is to the right whatever the direction: the regressed bandwidth
  // (-20 %) and the improved latency (+20 % better) sit on opposite sides.
  CHECK_THAT(h, Catch::Contains("8 GB/s (-20.0% better), regressed"));
  CHECK_THAT(h, Catch::Contains("4 us (+20.0% better), improved"));
  // The regressed row is drawn first.
  CHECK(h.find("bench.busbw{bytes=1048576}<title>") <
        h.find("storage.p99{mount=/mnt/shared}<title>"));
}

TEST_CASE(
    "gate html: the chart contract: a group per series, one colour each, a legend entry each") {
  const std::string h = render_gate_html(report(), page());
  CHECK(count(h, "<svg class=\"chart\"") == 1);
  CHECK(count(h, "data-series=") == 5);
  CHECK(count(h, "data-legend=") == 5);
  for (const char* s : {"baseline noise band", "baseline run", "new value: within the band",
                        "new value: regressed", "new value: improved"}) {
    CHECK(count(h, "data-series=\"" + std::string(s) + "\"") == 1);
    CHECK(count(h, "data-legend=\"" + std::string(s) + "\"") == 1);
  }
  // A series that is not drawn has no legend entry (nothing improved here).
  GatePage p = page();
  p.rows.erase(p.rows.begin() + 2);
  const std::string g = render_gate_html(report(), p);
  CHECK(count(g, "new value: improved") == 0);
  CHECK(count(g, "data-legend=") == 4);
}

TEST_CASE("gate html: each series has its own colour and a legend entry") {
  const std::string h = render_gate_html(report(), page());
  const std::regex legend_item(
      "<(?:rect|circle)[^>]*fill=\"(#[0-9a-f]{6})\"[^>]*/><text[^>]*>([^<]+)</text>");
  std::set<std::string> colours, labels;
  for (auto it = std::sregex_iterator(h.begin(), h.end(), legend_item);
       it != std::sregex_iterator(); ++it) {
    colours.insert((*it)[1]);
    labels.insert((*it)[2]);
  }
  CHECK(labels == std::set<std::string>{"baseline noise band", "baseline run",
                                        "new value: within the band", "new value: regressed",
                                        "new value: improved"});
  CHECK(colours.size() == 5);
}

TEST_CASE("gate html: text is escaped, a clean comparison says so") {
  GatePage p = page();
  p.title = "<x>&";
  p.rows[0].identity = "a{b=<script>}";
  Report r;
  const std::string h = render_gate_html(r, p);
  CHECK_THAT(h, Catch::Contains("nothing regressed"));
  CHECK_THAT(h, Catch::Contains("hnprecheck gate: &lt;x&gt;&amp;"));
  CHECK(h.find("<script>") == std::string::npos);
}
