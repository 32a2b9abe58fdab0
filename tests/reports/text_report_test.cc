#include "reports/text_report.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

#include "tests/reports/sample_report.h"

using namespace hn::reports;

namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool starts_with_status(const std::string& line) {
  for (const char* s : {"  PASS ", "  WARN ", "  FAIL ", "  SKIP ", "  ERROR "})
    if (line.rfind(s, 0) == 0) return true;
  return false;
}
}  // namespace

TEST_CASE("text report groups findings by layer, worst first, with remediation lines") {
  std::string text = render_text(test::sample_report(), {.color = false, .verbose = false});
  auto lines = lines_of(text);
  REQUIRE(lines.size() >= 10);
  CHECK(lines[0] == "hnprecheck preflight  host node0  profile demo");

  std::vector<std::string> expected_order = {
      "L1 model & data",
      "  SKIP   DATA-READ       /mnt/shared  dataset read: no dataset configured",
      "L3 collective communication",
      "  WARN   COMM-LINK       node0-node1  busbw 9.1 GB/s below the warn threshold 10 GB/s",
      "         -> Check the plane.",
      "L7 physical",
      "  ERROR  HW-TEMP         cpu0         temperature below limit: cannot read hwmon",
      "         -> The check could not run; fix the cause above and re-run.",
      "  FAIL   HW-NIC-MTU      eth1         eth1 MTU is 1500, plane param0 expects 9000",
      "         -> Set it with `ip link set eth1 mtu 9000`",
      "  PASS   HW-NIC-PRESENT  eth1         NIC eth1 of plane param0 is present",
  };
  std::vector<std::string> body;
  for (const auto& l : lines)
    if (!l.empty() && l != lines[0] && l.find("checks:") == std::string::npos) body.push_back(l);
  CHECK(body == expected_order);
  CHECK(lines.back() == "5 checks: 1 pass, 1 warn, 1 fail, 1 skip, 1 error in 1.50 s");
  CHECK(text.find('\033') == std::string::npos);
  CHECK(text.find("evidence") == std::string::npos);
}

TEST_CASE("text report columns line up across layers, counting characters not bytes") {
  Report r = test::sample_report();
  r.findings.push_back(test::tricky_finding());  // entity of 13 characters
  Finding wide = r.findings[1];
  wide.entity = "gpu°0";  // 5 characters, 6 bytes
  r.findings.push_back(wide);
  int checked = 0;
  for (auto l : lines_of(render_text(r, {}))) {
    if (!starts_with_status(l)) continue;
    // One column per character: multi-byte sequences become a single 'x'.
    std::string cols;
    for (unsigned char c : l)
      if ((c & 0xC0) != 0x80) cols += c < 0x80 ? static_cast<char>(c) : 'x';
    INFO(l);
    // status 2..6, code from 9 (width 14), entity from 25 (width 13), message from 40.
    for (size_t col : {9, 25, 40}) {
      CHECK(cols.substr(col - 2, 2) == "  ");
      CHECK(cols[col] != ' ');
    }
    ++checked;
  }
  CHECK(checked == 7);
}

TEST_CASE("text report colours statuses only when asked") {
  std::string text = render_text(test::sample_report(), {.color = true, .verbose = false});
  CHECK(text.find("\033[31mFAIL \033[0m") != std::string::npos);
  CHECK(text.find("\033[32mPASS \033[0m") != std::string::npos);
  CHECK(text.find("\033[33mWARN \033[0m") != std::string::npos);
  CHECK(text.find("\033[35mERROR\033[0m") != std::string::npos);
  CHECK(text.find("\033[90mSKIP \033[0m") != std::string::npos);
  // Colour must not change the layout: stripping the escapes gives the plain text.
  std::string stripped;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\033') {
      i = text.find('m', i);
      continue;
    }
    stripped += text[i];
  }
  CHECK(stripped == render_text(test::sample_report(), {.color = false, .verbose = false}));
}

TEST_CASE("verbose text report adds evidence, metrics and durations") {
  std::string text = render_text(test::sample_report(), {.color = false, .verbose = true});
  CHECK(text.find("         evidence source = /sys/class/net/eth1/mtu\n") != std::string::npos);
  CHECK(text.find("         metric   mtu = 1500 bytes\n") != std::string::npos);
  CHECK(text.find("         metric   busbw = 9.1 GB/s\n") != std::string::npos);
  CHECK(text.find("         took     2500.75 ms\n") != std::string::npos);
}

TEST_CASE("text report neutralises control characters from the system") {
  Report r = test::sample_report();
  r.findings = {test::tricky_finding()};
  std::string text = render_text(r, {});
  CHECK(text.find('\033') == std::string::npos);
  CHECK(text.find('\a') == std::string::npos);
  CHECK(text.find("esc?[31m") != std::string::npos);
  CHECK(text.find("tab here newline cr  bell?") != std::string::npos);
  // One finding: header, blank, layer, finding, remediation, blank, summary.
  CHECK(lines_of(text).size() == 7);
}

TEST_CASE("text report of no findings is just header and summary") {
  Report r = test::sample_report();
  r.findings.clear();
  r.profile.clear();
  auto lines = lines_of(render_text(r, {}));
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "hnprecheck preflight  host node0  profile -");
  CHECK(lines[2] == "0 checks: 0 pass, 0 warn, 0 fail, 0 skip, 0 error in 1.50 s");
  r.finished_unix_ms = r.started_unix_ms + 7;
  CHECK_THAT(render_text(r, {}), Catch::EndsWith("0 error in 7 ms\n"));
}

TEST_CASE("only_problems lists WARN, FAIL and ERROR but counts everything") {
  TextOptions opts;
  opts.only_problems = true;
  std::string text = render_text(test::sample_report(), opts);
  CHECK(text.find("HW-NIC-PRESENT") == std::string::npos);
  CHECK(text.find("DATA-READ") == std::string::npos);
  CHECK(text.find("L1 model & data") == std::string::npos);  // its only finding was a SKIP
  CHECK(text.find("  FAIL   HW-NIC-MTU  eth1         eth1 MTU") != std::string::npos);
  CHECK(text.find("  WARN   COMM-LINK   node0-node1") != std::string::npos);
  CHECK(text.find("  ERROR  HW-TEMP     cpu0") != std::string::npos);
  CHECK(text.find("5 checks: 1 pass, 1 warn, 1 fail, 1 skip, 1 error") != std::string::npos);
}
