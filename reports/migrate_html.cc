// The migration report as one self-contained HTML page: inline CSS and SVG,
// no script, nothing fetched. Two charts: the findings of each concern by
// status with the concern's verdict, and each model's operator coverage by
// class. The charts keep the contract of docs/html-charts.md (data-series,
// one colour each, a data-legend entry per series drawn; reports/svg_chart.h).
#include <cctype>
#include <sstream>

#include <map>
#include <set>

#include "reports/migrate_report.h"
#include "reports/report_time.h"
#include "reports/svg_chart.h"

namespace hn::reports {

namespace {

using svg::esc;
using svg::num;

constexpr Status kStatusOrder[] = {Status::kPass, Status::kWarn, Status::kFail, Status::kSkip,
                                   Status::kError};

// op_check's classes, best first, each with its own colour.
constexpr const char* kClasses[] = {"supported",         "supported-by-decomposition",
                                    "unknown-mapping",   "constraint-violated",
                                    "unsupported-dtype", "unsupported-op"};

const char* verdict_html_colour(Verdict v) {
  switch (v) {
    case Verdict::kReady:
      return svg::status_colour(Status::kPass);
    case Verdict::kNotChecked:
      return svg::status_colour(Status::kSkip);
    case Verdict::kNeedsChanges:
      return svg::status_colour(Status::kWarn);
    case Verdict::kBlocked:
      return svg::status_colour(Status::kFail);
  }
  return "#000";
}

// One row per concern: its findings by status as a stacked bar (a series per
// status, in the status colours every page uses), the verdict written after
// it in the verdict's colour; the legend names the statuses drawn.
void verdict_chart(std::ostringstream& os, const Report& report, const Migration& m) {
  const int label = 150, width = 360, row = 28, top = 8, legend_x = label + width + 130;
  std::size_t widest = 1;
  std::map<Status, int> present;
  for (const auto& c : m.concerns) {
    widest = std::max(widest, c.findings.size());
    for (std::size_t i : c.findings) ++present[report.findings.at(i).status];
  }
  const int height = std::max(top + row * static_cast<int>(m.concerns.size()),
                              top + 16 * static_cast<int>(present.size())) +
                     8;
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"verdicts per concern\" width=\""
     << legend_x + 80 << "\" height=\"" << height << "\">\n";
  int y = top;
  for (const auto& c : m.concerns) {
    os << "<text x=\"0\" y=\"" << y + 15 << "\">" << esc(c.title) << "</text>\n";
    double x = label;
    for (Status st : kStatusOrder) {
      int n = 0;
      for (std::size_t i : c.findings) n += report.findings.at(i).status == st;
      if (n == 0) continue;
      double w = static_cast<double>(n) / static_cast<double>(widest) * width;
      os << "<rect data-series=\"" << esc(to_string(st)) << "\" x=\"" << num(x) << "\" y=\""
         << y + 3 << "\" width=\"" << num(w) << "\" height=\"18\" fill=\"" << svg::status_colour(st)
         << "\"><title>" << esc(c.title) << ": " << n << " " << esc(to_string(st))
         << "</title></rect>\n";
      x += w;
    }
    os << "<text class=\"verdict\" x=\"" << num(x + 8) << "\" y=\"" << y + 16 << "\" fill=\""
       << verdict_html_colour(c.verdict) << "\">" << esc(to_string(c.verdict)) << "</text>\n";
    y += row;
  }
  int legend_y = top;
  for (Status st : kStatusOrder)
    if (present.count(st)) {
      svg::legend_entry(os, legend_x, legend_y, to_string(st), svg::status_colour(st),
                        to_string(st));
      legend_y += 16;
    }
  os << "</svg>\n";
}

// One bar per model: the share of its nodes (or calls) in each class; the
// legend names the classes drawn.
void coverage_chart(std::ostringstream& os, const Migration& m) {
  const int label = 150, width = 420, row = 30, top = 8, legend_x = label + width + 20;
  std::set<std::size_t> drawn;
  for (const auto& o : m.operators)
    for (std::size_t k = 0; k < std::size(kClasses); ++k) {
      auto it = o.by_class.find(kClasses[k]);
      if (it != o.by_class.end() && it->second > 0 && o.total > 0) drawn.insert(k);
    }
  const int height = std::max(top + row * static_cast<int>(m.operators.size()),
                              top + 16 * static_cast<int>(drawn.size())) +
                     8;
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"operator coverage\" width=\""
     << legend_x + 220 << "\" height=\"" << height << "\">\n";
  int y = top;
  for (const auto& o : m.operators) {
    auto slash = o.file.rfind('/');
    os << "<text x=\"0\" y=\"" << y + 16 << "\">"
       << esc(slash == std::string::npos ? o.file : o.file.substr(slash + 1)) << "</text>\n";
    double x = label;
    for (std::size_t k = 0; k < std::size(kClasses); ++k) {
      auto it = o.by_class.find(kClasses[k]);
      if (!drawn.count(k) || it == o.by_class.end() || it->second == 0) continue;
      double share = static_cast<double>(it->second) / static_cast<double>(o.total);
      double w = share * width;
      os << "<rect data-series=\"" << kClasses[k] << "\" x=\"" << num(x) << "\" y=\"" << y + 3
         << "\" width=\"" << num(w) << "\" height=\"20\" fill=\"" << svg::series_colour(k)
         << "\"><title>" << kClasses[k] << ": " << it->second << " of " << o.total << " ("
         << num(share * 100, "%.1f") << "%)</title></rect>\n";
      if (w > 34)
        os << "<text class=\"in\" x=\"" << num(x + 3) << "\" y=\"" << y + 17 << "\">"
           << num(share * 100, "%.0f") << "%</text>\n";
      x += w;
    }
    y += row;
  }
  int legend_y = top;
  for (std::size_t k : drawn) {
    svg::legend_entry(os, legend_x, legend_y, kClasses[k], svg::series_colour(k), kClasses[k]);
    legend_y += 16;
  }
  os << "</svg>\n";
}

void findings_table(std::ostringstream& os, const std::vector<Finding>& findings) {
  os << "<table>\n<tr><th>status</th><th>code</th><th>entity</th><th>message</th>"
        "<th>next step</th></tr>\n";
  for (const auto& f : findings) {
    std::string st(to_string(f.status));
    os << "<tr><td class=\"st\" style=\"color:" << svg::status_colour(f.status) << "\">" << st
       << "</td><td><code>" << esc(f.code) << "</code></td><td>" << esc(f.entity) << "</td><td>"
       << esc(f.message);
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
       << "</td><td class=\"v\" style=\"color:" << verdict_html_colour(c.verdict) << "\">"
       << esc(to_string(c.verdict)) << "</td><td>" << esc(c.summary) << "</td></tr>\n";
  os << "</table>\n<h3>Findings per concern</h3>\n";
  verdict_chart(os, report, m);
  if (!m.operators.empty()) {
    os << "<h3>Operator coverage (share of the model's nodes per class)</h3>\n";
    coverage_chart(os, m);
  }

  os << "<h2>Changes, in order</h2>\n";
  if (m.changes.empty()) {
    std::string none = no_changes_text(m);
    none[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(none[0])));
    os << "<p>" << esc(none) << ".</p>\n";
  } else {
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
    os << "<h2>" << esc(c.title) << ": <span style=\"color:" << verdict_html_colour(c.verdict) << "\">"
       << esc(to_string(c.verdict)) << "</span></h2>\n";
    findings_table(os, concern_findings(report, c, false));
  }
  os << "</body>\n</html>\n";
  return os.str();
}

}  // namespace hn::reports
