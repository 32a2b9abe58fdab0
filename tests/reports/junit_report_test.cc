#include "reports/junit_report.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "tests/reports/sample_report.h"
#include "tests/support/temp_dir.h"

using namespace hn::reports;

namespace {
size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1))
    ++n;
  return n;
}
}  // namespace

TEST_CASE("JUnit report has one suite per layer and one case per finding") {
  std::string xml = render_junit(test::sample_report());
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hnprecheck\" "
                  "tests=\"5\" failures=\"1\" errors=\"1\" skipped=\"1\" time=\"1.500\"",
                  0) == 0);
  CHECK(count(xml, "<testsuite ") == 3);
  CHECK(count(xml, "<testcase ") == 5);
  // Suites in layer order with their own counts and summed durations.
  size_t l1 = xml.find(
      "<testsuite name=\"L1 model &amp; data\" tests=\"1\" failures=\"0\" "
      "errors=\"0\" skipped=\"1\"");
  size_t l3 = xml.find("<testsuite name=\"L3 collective communication\" tests=\"1\"");
  size_t l7 = xml.find(
      "<testsuite name=\"L7 physical\" tests=\"3\" failures=\"1\" errors=\"1\" "
      "skipped=\"0\" time=\"0.002\"");
  REQUIRE(l1 != std::string::npos);
  REQUIRE(l3 != std::string::npos);
  REQUIRE(l7 != std::string::npos);
  CHECK(l1 < l3);
  CHECK(l3 < l7);
  CHECK(xml.find("hostname=\"node0\"") != std::string::npos);
  CHECK(xml.find("timestamp=\"2024-05-01T12:00:00.000Z\"") != std::string::npos);
}

TEST_CASE("JUnit maps each status to its element") {
  std::string xml = render_junit(test::sample_report());
  CHECK(xml.find("<testcase classname=\"hnprecheck.preflight.L7\" name=\"HW-NIC-PRESENT eth1\" "
                 "time=\"0.001\"/>") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"hnprecheck.preflight.L7\" name=\"HW-NIC-MTU eth1\" "
                 "time=\"0.001\">\n      <failure message=\"eth1 MTU is 1500, plane param0 "
                 "expects 9000\" type=\"HW-NIC-MTU\">eth1 MTU is 1500, plane param0 expects 9000\n"
                 "remediation: Set it with `ip link set eth1 mtu 9000`\nevidence:\n"
                 "  expected = 9000\n  mtu = 1500\n  source = /sys/class/net/eth1/mtu\n"
                 "metrics:\n  mtu = 1500 bytes</failure>") != std::string::npos);
  CHECK(xml.find("<error message=\"temperature below limit: cannot read hwmon\" "
                 "type=\"HW-TEMP\">") != std::string::npos);
  CHECK(xml.find("<skipped message=\"dataset read: no dataset configured\"/>") !=
        std::string::npos);
  CHECK(xml.find("<system-out>WARN: busbw 9.1 GB/s below the warn threshold 10 GB/s\n"
                 "-&gt; Check the plane.</system-out>") != std::string::npos);
  CHECK(xml.find("time=\"2.501\"") != std::string::npos);
}

TEST_CASE("xml_escape escapes markup and drops what XML 1.0 cannot carry") {
  CHECK(xml_escape("a & b < c > d \" e ' f", false) == "a &amp; b &lt; c &gt; d &quot; e &apos; f");
  CHECK(xml_escape("x]]>y", false) == "x]]&gt;y");
  CHECK(xml_escape("l1\nl2\tt\rr", false) == "l1\nl2\tt&#13;r");
  CHECK(xml_escape("l1\nl2\tt\rr", true) == "l1&#10;l2&#9;t&#13;r");
  CHECK(xml_escape("bell\x07|nul", false) == "bell\xEF\xBF\xBD|nul");
  CHECK(xml_escape(std::string("a\0b", 3), false) ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(xml_escape("bad\xff", false) == "bad\xEF\xBF\xBD");
  CHECK(xml_escape("\xEF\xBF\xBE", false) == "\xEF\xBF\xBD");  // U+FFFE is not an XML char
  CHECK(xml_escape("°C 日本", false) == "°C 日本");
}

TEST_CASE("JUnit output with tricky strings has no raw markup or control bytes") {
  Report r = test::sample_report();
  r.command = "pre<flight>&";
  r.hostname = "node\"0'";
  r.findings = {test::tricky_finding()};
  std::string xml = render_junit(r);
  for (unsigned char c : xml) {
    INFO("byte " << static_cast<int>(c));
    CHECK((c >= 0x20 || c == '\n' || c == '\t'));
  }
  CHECK(xml.find("classname=\"hnprecheck.pre&lt;flight&gt;&amp;.L7\"") != std::string::npos);
  CHECK(xml.find("name=\"HW-NIC-STATE eth&lt;1&gt;&amp;&quot;x&quot;&apos;y&apos;\"") !=
        std::string::npos);
  CHECK(xml.find("hostname=\"node&quot;0&apos;\"") != std::string::npos);
  CHECK(xml.find("tab&#9;here&#10;newline cr&#13; bell\xEF\xBF\xBD") != std::string::npos);
  CHECK(xml.find("  raw&lt;key&gt; = v&amp;l\xEF\xBF\xBDue") != std::string::npos);
}

TEST_CASE("JUnit output with tricky strings is well-formed XML (xmllint)") {
  // A failure, not a skip: scripts/install-deps.sh --test installs xmllint
  // (libxml2-utils), and a skipped check would let CI pass unchecked.
  INFO("xmllint is missing: run scripts/install-deps.sh --test (package libxml2-utils)");
  REQUIRE(std::system("command -v xmllint >/dev/null 2>&1") == 0);
  Report r = test::sample_report();
  r.command = "pre<flight>&";
  r.findings.push_back(test::tricky_finding());
  hn::test::TempDir dir;
  std::string path = dir.write("junit.xml", render_junit(r));
  CHECK(std::system(("xmllint --noout " + path).c_str()) == 0);
}

TEST_CASE("JUnit report of no findings is an empty testsuites element") {
  Report r = test::sample_report();
  r.findings.clear();
  std::string xml = render_junit(r);
  CHECK(xml.find("tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\"") != std::string::npos);
  CHECK(xml.find("<testsuite ") == std::string::npos);
  CHECK(xml.find("</testsuites>\n") != std::string::npos);
}
