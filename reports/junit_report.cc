#include "reports/junit_report.h"

#include <cstdio>
#include <vector>

#include "reports/report_time.h"
#include "reports/utf8.h"

namespace hn::reports {

namespace {

bool allowed_in_xml(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms / 1000.0);
  return buf;
}

std::string attr(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + xml_escape(value, true) + "\"";
}

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double duration_ms = 0;
  void add(const Finding& f) {
    ++tests;
    failures += f.status == Status::kFail;
    errors += f.status == Status::kError;
    skipped += f.status == Status::kSkip;
    duration_ms += f.duration_ms;
  }
  std::string attrs() const {
    return attr("tests", std::to_string(tests)) + attr("failures", std::to_string(failures)) +
           attr("errors", std::to_string(errors)) + attr("skipped", std::to_string(skipped));
  }
};

// Body of <failure>/<error>: everything a person needs without opening the
// JSON report.
std::string problem_body(const Finding& f) {
  std::string body = f.message;
  if (!f.remediation.empty()) body += "\nremediation: " + f.remediation;
  if (!f.evidence.empty()) {
    body += "\nevidence:";
    for (const auto& [k, v] : f.evidence) body += "\n  " + k + " = " + v;
  }
  if (!f.metrics.empty()) {
    body += "\nmetrics:";
    char buf[64];
    for (const auto& [name, m] : f.metrics) {
      std::snprintf(buf, sizeof buf, "%.6g", m.value);
      body += "\n  " + name + " = " + buf + (m.unit.empty() ? "" : " " + m.unit);
    }
  }
  return body;
}

std::string testcase(const Finding& f, const std::string& classname) {
  std::string name = f.entity.empty() ? f.code : f.code + " " + f.entity;
  std::string open = "    <testcase" + attr("classname", classname) + attr("name", name) +
                     attr("time", seconds(f.duration_ms));
  switch (f.status) {
    case Status::kPass:
      return open + "/>\n";
    case Status::kWarn:
      return open + ">\n      <system-out>" +
             xml_escape(
                 "WARN: " + f.message + (f.remediation.empty() ? "" : "\n-> " + f.remediation),
                 false) +
             "</system-out>\n    </testcase>\n";
    case Status::kSkip:
      return open + ">\n      <skipped" + attr("message", f.message) + "/>\n    </testcase>\n";
    case Status::kFail:
    case Status::kError: {
      const char* tag = f.status == Status::kFail ? "failure" : "error";
      return open + ">\n      <" + tag + attr("message", f.message) + attr("type", f.code) + ">" +
             xml_escape(problem_body(f), false) + "</" + tag + ">\n    </testcase>\n";
    }
  }
  return open + "/>\n";
}

}  // namespace

std::string xml_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c = next_code_point(text, pos);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;  // also keeps "]]>" out of content
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      // A reader turns a raw CR into LF, and raw whitespace in an attribute
      // into spaces; references survive both.
      case '\r':
        out += "&#13;";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        append_utf8(out, allowed_in_xml(c) ? c : kReplacementChar);
    }
  }
  return out;
}

std::string render_junit(const Report& report) {
  std::vector<Finding> findings = sorted_for_report(report.findings);
  Counts total;
  for (const auto& f : findings) total.add(f);
  double run_ms = static_cast<double>(report.finished_unix_ms - report.started_unix_ms);
  std::string timestamp = format_iso8601_ms(report.started_unix_ms);

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites" + attr("name", "hnprecheck") + total.attrs() +
         attr("time", seconds(run_ms)) + attr("timestamp", timestamp) + ">\n";
  std::string prefix =
      report.command.empty() ? "hnprecheck." : "hnprecheck." + report.command + ".";
  for (std::size_t i = 0; i < findings.size();) {
    Layer layer = findings[i].layer;
    std::size_t end = i;
    Counts suite;
    while (end < findings.size() && findings[end].layer == layer) suite.add(findings[end++]);
    std::string classname = prefix + std::string(to_string(layer));
    out += "  <testsuite" +
           attr("name", std::string(to_string(layer)) + " " + std::string(layer_title(layer))) +
           suite.attrs() + attr("time", seconds(suite.duration_ms)) + attr("timestamp", timestamp) +
           attr("hostname", report.hostname) + ">\n";
    for (; i < end; ++i) out += testcase(findings[i], classname);
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace hn::reports
