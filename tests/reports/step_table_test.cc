#include "reports/step_table.h"

#include <catch2/catch.hpp>

using hn::reports::StepTable;

namespace {

StepTable sample() {
  StepTable t;
  t.layout = "tp=2,pp=2,dp=2";
  t.world = 8;
  t.steps = 19;
  t.basis = "rank 5, the slowest";
  t.total_ms = 40;
  t.rows = {{"L4", "compute", 20, 0, 120},
            {"L3", "allgather tp", 10, 3 * 1024 * 1024, 16},
            {"L3", "send/recv <pp>", 6, 2048, 4},
            {"L2", "other", 4, 0, 1}};
  return t;
}

}  // namespace

TEST_CASE("step table: text has every row with its share, bytes and the total") {
  const std::string text = hn::reports::render_step_table_text(sample());
  CHECK_THAT(text, Catch::StartsWith("step time, tp=2,pp=2,dp=2 (8 ranks, mean of 19 steps, rank 5, "
                                     "the slowest)\n"));
  CHECK_THAT(text, Catch::Contains("L4    compute"));
  CHECK_THAT(text, Catch::Contains("20.000   50.0%     120           -"));
  CHECK_THAT(text, Catch::Contains("10.000   25.0%      16     3.0 MiB"));
  CHECK_THAT(text, Catch::Contains("2.0 KiB"));
  CHECK_THAT(text, Catch::Contains("total"));
  CHECK_THAT(text, Catch::Contains("40.000  100.0%"));
}

TEST_CASE("step table: the HTML fragment has one bar per row, escaped") {
  const std::string html = hn::reports::render_step_table_html(sample());
  CHECK_THAT(html, Catch::Contains("<svg class=\"chart\""));
  CHECK_THAT(html, Catch::Contains("</svg>"));
  std::size_t bars = 0;
  for (std::size_t at = 0; (at = html.find("<rect ", at)) != std::string::npos; ++at) ++bars;
  CHECK(bars == 4);
  CHECK_THAT(html, Catch::Contains("send/recv &lt;pp&gt;"));
  CHECK(html.find("<pp>") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("fill=\"#2e7d32\""));  // L4's colour
}
