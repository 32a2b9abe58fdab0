#include "reports/bench_html.h"

#include <catch2/catch.hpp>

using namespace hn::reports;

namespace {
int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

BenchHtml page() {
  BenchHtml p;
  p.title = "allreduce, 2 rank(s), shm";
  p.setup = {"dtype f32"};
  p.rows = {{0, 0, 0.2, 0, 0, 0},
            {8, 2, 0.25, 0.032, 0.032, 0},
            {1024, 256, 0.5, 2.0, 2.0, 0},
            {1 << 20, 1 << 18, 150, 7.0, 7.0, 3}};
  return p;
}
}  // namespace

TEST_CASE("bench html: a point per non-empty size, the table has every row") {
  std::string h = render_bench_html(page());
  CHECK_THAT(h, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK(count(h, "<circle") == 3);  // the 0-byte row has no place on a log axis
  CHECK(count(h, "<tr><td>") == 4);
  CHECK_THAT(h, Catch::Contains("<title>1 MiB: 7.000 GB/s</title>"));
  CHECK_THAT(h, Catch::Contains("FAILED: 3 wrong element(s)"));
  CHECK_THAT(h, Catch::Contains("<td class=\"bad\">3</td>"));
  CHECK_THAT(h, Catch::Contains(">10</text>"));  // the axis rounds 7 GB/s up to 10
}

TEST_CASE("bench html: a clean sweep says so and text is escaped") {
  BenchHtml p = page();
  p.rows.back().wrong = 0;
  p.title = "<x>&";
  std::string h = render_bench_html(p);
  CHECK_THAT(h, Catch::Contains("every element was right"));
  CHECK_THAT(h, Catch::Contains("hnprecheck bench: &lt;x&gt;&amp;"));
  CHECK(h.find("<x>") == std::string::npos);
}
