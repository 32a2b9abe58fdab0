// The README's example `hnprecheck node` output against a live run, so the
// documented wording cannot drift from the binary. Numbers (memory, ms,
// addresses) differ run to run and are compared as "#"; a line whose finding
// has another status on this machine (a host with RDMA, a thermal sensor) is
// not comparable and is left out, but at least one line must be.

#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"
#include "tests/support/readme_blocks.h"
#include "tests/support/skip.h"

namespace {

struct Line {
  std::string status, code, entity, message;
};

std::string numbers_as_hash(const std::string& s) {
  static const std::regex number("[0-9]+(\\.[0-9]+)*");
  return std::regex_replace(s, number, "#");
}

std::vector<Line> finding_lines(const std::string& text) {
  static const std::regex row("^\\s+(PASS|WARN|FAIL|SKIP|ERROR)\\s+(\\S+)\\s+(\\S+)\\s+(.*)$");
  std::vector<Line> out;
  std::istringstream in(text);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_match(l, m, row)) out.push_back({m[1], m[2], m[3], m[4]});
  return out;
}

std::string summary_line(const std::string& text) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l))
    if (l.find(" checks: ") != std::string::npos) return l;
  return "";
}

}  // namespace

TEST_CASE("readme: the example node output matches a live run's wording") {
  std::string example;
  for (const auto& b : hn::test::fenced_blocks(std::string(HN_SOURCE_DIR) + "/README.md", "text"))
    if (b.text.rfind("hnprecheck node ", 0) == 0) example = b.text;
  REQUIRE_FALSE(example.empty());
  auto live = hn::test::run_process({HN_BINARY, "node", "--no-color"}, 60);
  INFO(live.out << live.err);
  REQUIRE(live.exit_code == 0);
  CHECK(numbers_as_hash(summary_line(example)) == numbers_as_hash(summary_line(live.out)));
  int compared = 0;
  for (const auto& doc : finding_lines(example)) {
    for (const auto& got : finding_lines(live.out)) {
      if (got.code != doc.code || got.status != doc.status) continue;
      CAPTURE(doc.code, doc.entity);
      CHECK(numbers_as_hash(got.message) == numbers_as_hash(doc.message));
      ++compared;
      break;
    }
  }
  if (compared == 0) hn::test::skip("no finding of the README example has the same status here");
  CHECK(compared >= 3);
}

namespace {

std::string squeezed(const std::string& s) {
  static const std::regex spaces(" +");
  return std::regex_replace(numbers_as_hash(s), spaces, " ");
}

std::string line_with(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l))
    if (l.rfind(prefix, 0) == 0) return l;
  return "";
}

}  // namespace

// The quick start's certify example: the verdict a newcomer reads first must
// be the one this build gives a single machine (it once said "certified"
// after one host had become "partial"), and each finding it shows must read
// as a live run's does.
TEST_CASE("readme: the quick start's certify example matches a live run") {
  std::string example;
  for (const auto& b : hn::test::fenced_blocks(std::string(HN_SOURCE_DIR) + "/README.md", "text"))
    if (b.text.rfind("hnprecheck certify ", 0) == 0 && example.empty()) example = b.text;
  REQUIRE_FALSE(example.empty());
  auto live = hn::test::run_process({HN_BINARY, "certify", "--no-color"}, 300);
  INFO(live.out << live.err);
  REQUIRE(live.exit_code == 0);
  CHECK(squeezed(line_with(example, "verdict: ")) == squeezed(line_with(live.out, "verdict: ")));
  CHECK(squeezed(summary_line(example)) == squeezed(summary_line(live.out)));
  const auto shown = finding_lines(example);
  REQUIRE(shown.size() >= 3);
  for (const auto& doc : shown) {
    CAPTURE(doc.code, doc.entity);
    bool found = false;
    for (const auto& got : finding_lines(live.out))
      if (got.code == doc.code && got.entity == doc.entity) {
        CHECK(got.status == doc.status);
        CHECK(squeezed(got.message) == squeezed(doc.message));
        found = true;
        break;
      }
    CHECK(found);
  }
}
