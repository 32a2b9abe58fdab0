#include "reports/markdown_report.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

#include "tests/reports/sample_report.h"

using namespace hn::reports;

namespace {
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// Table cells of one row, honouring escaped pipes.
int cells(const std::string& row) {
  int n = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++n;
  return n - 1;
}
}  // namespace

TEST_CASE("markdown: title, summary and one table per layer, problems first") {
  std::string md = render_markdown(test::sample_report());
  CHECK_THAT(md, Catch::StartsWith("# hnprecheck preflight: node0\n"));
  CHECK_THAT(md, Catch::Contains("**5 checks: 1 pass, 1 warn, 1 fail, 1 skip, 1 error**"));
  CHECK_THAT(md, Catch::Contains("2024-05-01T12:00:01.500Z"));
  auto l1 = md.find("## L1"), l3 = md.find("## L3"), l7 = md.find("## L7");
  REQUIRE(l1 != std::string::npos);
  CHECK(l1 < l3);
  CHECK(l3 < l7);
  auto fail = md.find("| FAIL | `HW-NIC-MTU`"), pass = md.find("| PASS | `HW-NIC-PRESENT`");
  REQUIRE(fail != std::string::npos);
  CHECK(fail < pass);
  CHECK_THAT(md, Catch::Contains("Set it with `ip link set eth1 mtu 9000`"));
}

TEST_CASE("markdown: a pipe or a line break in a message never breaks the table") {
  Report r = test::sample_report();
  r.findings[0].message = "a | b\nc";
  r.findings[0].entity = "x|y";
  for (const auto& row : lines(render_markdown(r)))
    if (!row.empty() && row[0] == '|') CHECK(cells(row) == 5);
  CHECK_THAT(render_markdown(r), Catch::Contains("a \\| b<br>c"));
}

TEST_CASE("markdown: HTML and emphasis characters are shown, not interpreted") {
  Report r = test::sample_report();
  r.findings[0].remediation = "see /proc/<pid>/stack & my_mount_*";
  r.findings[0].message = "a \\| b";  // a backslash before a pipe stays one cell
  std::string md = render_markdown(r);
  CHECK_THAT(md, Catch::Contains("see /proc/&lt;pid&gt;/stack &amp; my\\_mount\\_\\*"));
  CHECK_THAT(md, Catch::Contains("a \\\\\\| b"));
  for (const auto& row : lines(md))
    if (!row.empty() && row[0] == '|') CHECK(cells(row) == 5);
}
