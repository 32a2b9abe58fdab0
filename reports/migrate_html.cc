// The migration report as one self-contained HTML page: inline CSS and SVG,
// no script, nothing fetched. Two charts: the findings of each concern by
// status with the concern's verdict, and each model's operator coverage by
// class. Every series has its own colour and a legend entry.
#include <cstdio>
#include <sstream>

#include "reports/junit_report.h"
#include "reports/migrate_report.h"
#include "reports/report_time.h"

namespace hn::reports {

namespace {

std::string esc(std::string_view v) {
  return xml_escape(v, false);
}

std::string num(double v, const char* f = "%.1f") {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

struct Series {
  const char* name;
  const char* colour;
};

constexpr Series kStatusSeries[] = {
    {"PASS", "#2e7d32"}, {"WARN", "#ef6c00"},  {"FAIL", "#c62828"},
    {"SKIP", "#757575"}, {"ERROR", "#6a1b9a"},
};
constexpr Status kStatusOrder[] = {Status::kPass, Status::kWarn, Status::kFail, Status::kSkip,
                                   Status::kError};

// op_check's classes, best first.
constexpr Series kClassSeries[] = {
    {"supported", "#1b5e20"},         {"supported-by-decomposition", "#64b5f6"},
    {"unknown-mapping", "#fbc02d"},   {"constraint-violated", "#8d6e63"},
    {"unsupported-dtype", "#d81b60"}, {"unsupported-op", "#b71c1c"},
};

const char* verdict_colour(Verdict v) {
  switch (v) {
    case Verdict::kReady:
      return "#2e7d32";
    case Verdict::kNeedsChanges:
      return "#ef6c00";
    case Verdict::kBlocked:
      return "#c62828";
  }
  return "#000";
}

template <std::size_t N>
void legend(std::ostringstream& os, const Series (&series)[N], int y, int width) {
  int x = 0;
  for (const auto& s : series) {
    int w = 30 + 8 * static_cast<int>(std::string_view(s.name).size());
    if (x + w > width) {
      x = 0;
      y += 18;
    }
    os << "<g class=\"legend\"><rect x=\"" << x << "\" y=\"" << y
       << "\" width=\"12\" height=\"12\" "
       << "fill=\"" << s.colour << "\"/><text x=\"" << x + 16 << "\" y=\"" << y + 10 << "\">"
       << esc(s.name) << "</text></g>\n";
    x += w;
  }
}

// One row per concern: its findings by status as a stacked bar, the verdict
// written after it in the verdict's colour.
void verdict_chart(std::ostringstream& os, const Report& report, const Migration& m) {
  const int label = 150, width = 360, row = 28, top = 8;
  std::size_t widest = 1;
  for (const auto& c : m.concerns) widest = std::max(widest, c.findings.size());
  const int height = top + row * static_cast<int>(m.concerns.size()) + 44;
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"verdicts per concern\" width=\""
     << label + width + 140 << "\" height=\"" << height << "\">\n";
  int y = top;
  for (const auto& c : m.concerns) {
    os << "<text x=\"0\" y=\"" << y + 15 << "\">" << esc(c.title) << "</text>\n";
    double x = label;
    for (std::size_t s = 0; s < std::size(kStatusOrder); ++s) {
      int n = 0;
      for (std::size_t i : c.findings) n += report.findings.at(i).status == kStatusOrder[s];
      if (n == 0) continue;
      double w = static_cast<double>(n) / static_cast<double>(widest) * width;
      os << "<rect x=\"" << num(x) << "\" y=\"" << y + 3 << "\" width=\"" << num(w)
         << "\" height=\"18\" fill=\"" << kStatusSeries[s].colour << "\"><title>" << esc(c.title)
         << ": " << n << " " << kStatusSeries[s].name << "</title></rect>\n";
      x += w;
    }
    os << "<text class=\"verdict\" x=\"" << num(x + 8) << "\" y=\"" << y + 16 << "\" fill=\""
       << verdict_colour(c.verdict) << "\">" << esc(to_string(c.verdict)) << "</text>\n";
    y += row;
  }
  legend(os, kStatusSeries, y + 8, label + width);
  os << "</svg>\n";
}

// One bar per model: the share of its nodes (or calls) in each class.
void coverage_chart(std::ostringstream& os, const Migration& m) {
  const int label = 150, width = 420, row = 30, top = 8;
  const int height = top + row * static_cast<int>(m.operators.size()) + 62;
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"operator coverage\" width=\""
     << label + width + 20 << "\" height=\"" << height << "\">\n";
  int y = top;
  for (const auto& o : m.operators) {
    std::string name =
        o.file.substr(o.file.rfind('/') == std::string::npos ? 0 : o.file.rfind('/') + 1);
    os << "<text x=\"0\" y=\"" << y + 16 << "\">" << esc(name) << "</text>\n";
    double x = label;
    for (const auto& s : kClassSeries) {
      auto it = o.by_class.find(s.name);
      if (it == o.by_class.end() || it->second == 0 || o.total == 0) continue;
      double share = static_cast<double>(it->second) / static_cast<double>(o.total);
      double w = share * width;
      os << "<rect x=\"" << num(x) << "\" y=\"" << y + 3 << "\" width=\"" << num(w)
         << "\" height=\"20\" fill=\"" << s.colour << "\"><title>" << esc(s.name) << ": "
         << it->second << " of " << o.total << " (" << num(share * 100) << "%)</title></rect>\n";
      if (w > 34)
        os << "<text class=\"in\" x=\"" << num(x + 3) << "\" y=\"" << y + 17 << "\">"
           << num(share * 100, "%.0f") << "%</text>\n";
      x += w;
    }
    y += row;
  }
  legend(os, kClassSeries, y + 8, label + width);
  os << "</svg>\n";
}

void findings_table(std::ostringstream& os, const std::vector<Finding>& findings) {
  os << "<table>\n<tr><th>status</th><th>code</th><th>entity</th><th>message</th>"
        "<th>next step</th></tr>\n";
  for (const auto& f : findings) {
    std::string st(to_string(f.status));
    os << "<tr><td class=\"st\" style=\"color:" << kStatusSeries[static_cast<int>(f.status)].colour
       << "\">" << st << "</td><td><code>" << esc(f.code) << "</code></td><td>" << esc(f.entity)
       << "</td><td>" << esc(f.message);
    if (!f.evidence.empty()) {
      os << "<details><summary>evidence</summary><ul>";
      for (const auto& [k, v] : f.evidence) os << "<li>" << esc(k) << ": " << esc(v) << "</li>";
      os << "</ul></details>";
    }
    os << "</td><td>" << esc(f.remediation) << "</td></tr>\n";
  }
  os << "</table>\n";
}

}  // namespace

std::string render_migration_html(const Report& report, const Migration& m) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
     << "<title>hnprecheck migrate: " << esc(m.job) << "</title>\n<style>\n"
     << "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}"
        "table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid #ccc;"
        "padding:3px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}"
        ".st{font-weight:bold}.chart text{font-size:12px;fill:#222}.chart text.in{fill:#fff}"
        ".chart text.verdict{font-weight:bold}.v{font-weight:bold}\n"
     << "</style>\n</head>\n<body>\n<h1>hnprecheck migrate: " << esc(m.job) << "</h1>\n"
     << "<p>Target " << esc(m.target) << "; finished "
     << esc(format_iso8601_ms(report.finished_unix_ms)) << " by hnprecheck "
     << esc(report.tool_version) << ".</p>\n";

  os << "<h2>Verdicts</h2>\n<table>\n<tr><th>concern</th><th>verdict</th><th>summary</th></tr>\n";
  for (const auto& c : m.concerns)
    os << "<tr><td>" << esc(c.title)
       << "</td><td class=\"v\" style=\"color:" << verdict_colour(c.verdict) << "\">"
       << esc(to_string(c.verdict)) << "</td><td>" << esc(c.summary) << "</td></tr>\n";
  os << "</table>\n<h3>Findings per concern</h3>\n";
  verdict_chart(os, report, m);
  if (!m.operators.empty()) {
    os << "<h3>Operator coverage (share of the model's nodes per class)</h3>\n";
    coverage_chart(os, m);
  }

  os << "<h2>Changes, in order</h2>\n";
  if (m.changes.empty())
    os << "<p>None: the job can move as it is.</p>\n";
  else {
    os << "<ol>\n";
    for (const auto& c : m.changes)
      os << "<li>" << (c.severity == Verdict::kBlocked ? "<strong>blocking</strong> " : "")
         << esc(c.concern) << ", " << esc(c.entity) << ": " << esc(c.what)
         << (change_place(c).empty() ? "" : " <code>" + esc(change_place(c)) + "</code>")
         << "</li>\n";
    os << "</ol>\n";
  }

  os << "<h2>Inputs</h2>\n<table>\n<tr><th>name</th><th>value</th><th>from</th></tr>\n";
  for (const auto& i : m.inputs)
    os << "<tr><td>" << esc(i.name) << "</td><td>" << esc(i.value) << "</td><td>" << esc(i.origin)
       << (i.where.empty() ? "" : " <code>" + esc(i.where) + "</code>")
       << (i.used ? "" : " (overridden)") << "</td></tr>\n";
  for (const auto& a : m.artifacts)
    os << "<tr><td>" << esc(a.kind == "env" ? "env file" : "script") << "</td><td><code>"
       << esc(a.path) << "</code></td><td>" << esc(a.status) << "</td></tr>\n";
  os << "</table>\n";

  for (const auto& c : m.concerns) {
    os << "<h2>" << esc(c.title) << ": <span style=\"color:" << verdict_colour(c.verdict) << "\">"
       << esc(to_string(c.verdict)) << "</span></h2>\n";
    findings_table(os, concern_findings(report, c, false));
  }
  os << "</body>\n</html>\n";
  return os.str();
}

}  // namespace hn::reports
