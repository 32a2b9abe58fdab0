#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "reports/html_latency_chart.h"
#include "reports/report_time.h"
#include "reports/svg_chart.h"

namespace hn::reports {

namespace {

using svg::esc;
using svg::num;

constexpr Status kOrder[] = {Status::kFail, Status::kError, Status::kWarn, Status::kSkip,
                             Status::kPass};

// One horizontal bar per layer that has findings, segments by status; a
// status is a series (its segments in every bar) with a legend entry.
void layer_chart(std::ostringstream& os, const std::vector<Finding>& findings) {
  std::map<Layer, std::map<Status, int>> counts;
  std::map<Status, int> present;
  int widest = 1;
  for (const auto& f : findings) ++counts[f.layer][f.status], ++present[f.status];
  if (counts.empty()) return;
  for (const auto& [layer, by] : counts) {
    int n = 0;
    for (const auto& [st, c] : by) n += c;
    widest = std::max(widest, n);
  }
  const int row = 26, label = 230, width = 420, legend_x = label + width + 60;
  const std::size_t legend_rows = present.size();
  const std::size_t height = std::max(row * counts.size() + 10, 16 * legend_rows + 10);
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"findings per layer\" width=\""
     << legend_x + 90 << "\" height=\"" << height << "\">\n";
  int y = 5;
  for (const auto& [layer, by] : counts) {
    os << "<text x=\"0\" y=\"" << y + 16 << "\">" << esc(to_string(layer)) << ' '
       << esc(layer_title(layer)) << "</text>\n";
    double x = label;
    int total = 0;
    for (Status st : kOrder) {
      auto it = by.find(st);
      if (it == by.end()) continue;
      double w = static_cast<double>(it->second) * width / widest;
      os << "<rect data-series=\"" << esc(to_string(st)) << "\" x=\"" << num(x) << "\" y=\"" << y
         << "\" width=\"" << num(w) << "\" height=\"20\" fill=\"" << svg::status_colour(st)
         << "\"><title>" << it->second << ' ' << esc(to_string(st)) << "</title></rect>\n";
      x += w;
      total += it->second;
    }
    os << "<text x=\"" << num(x + 6) << "\" y=\"" << y + 16 << "\">" << total << "</text>\n";
    y += row;
  }
  int legend_y = 5;
  for (Status st : kOrder)
    if (present.count(st)) {
      svg::legend_entry(os, legend_x, legend_y, to_string(st), svg::status_colour(st),
                        to_string(st));
      legend_y += 16;
    }
  os << "</svg>\n";
}

}  // namespace

std::string render_html(const Report& report) {
  const Summary s = summarize(report.findings);
  const std::vector<Finding> sorted = sorted_for_report(report.findings);
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>hnprecheck "
     << esc(report.command) << ": " << esc(report.hostname) << "</title>\n<style>\n"
     << "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;width:100%;margin-bottom:1.5em}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
        "th{background:#f3f3f3}.st{color:#fff;font-weight:bold;border-radius:3px;padding:1px 6px}"
        "code{font-size:90%}.chart text{font-size:12px;fill:#222}details{margin-top:4px}"
        "dl{margin:4px 0}dt{font-weight:bold;float:left;clear:left;margin-right:6px}\n"
     << "</style>\n</head>\n<body>\n";
  os << "<h1>hnprecheck " << esc(report.command) << ": " << esc(report.hostname) << "</h1>\n"
     << "<p>Profile <code>" << esc(report.profile) << "</code>, finished "
     << esc(format_iso8601_ms(report.finished_unix_ms)) << ", hnprecheck "
     << esc(report.tool_version) << ".</p>\n<p><strong>" << s.total() << " checks:</strong> ";
  const std::pair<Status, int> counts[] = {{Status::kPass, s.pass},
                                           {Status::kWarn, s.warn},
                                           {Status::kFail, s.fail},
                                           {Status::kSkip, s.skip},
                                           {Status::kError, s.error}};
  for (const auto& [st, n] : counts)
    os << "<span class=\"st\" style=\"background:" << svg::status_colour(st) << "\">" << n << ' '
       << esc(to_string(st)) << "</span> ";
  os << "</p>\n";
  if (!report.findings.empty()) os << "<h2>Findings per layer</h2>\n";
  layer_chart(os, report.findings);
  latency_charts(os, report.findings);
  bool open = false;
  Layer current = Layer::kL1;
  for (const auto& f : sorted) {
    if (!open || f.layer != current) {
      if (open) os << "</table>\n";
      current = f.layer;
      open = true;
      os << "<h2>" << esc(to_string(f.layer)) << ' ' << esc(layer_title(f.layer)) << "</h2>\n"
         << "<table>\n<tr><th>status</th><th>code</th><th>entity</th><th>finding</th></tr>\n";
    }
    os << "<tr><td><span class=\"st\" style=\"background:" << svg::status_colour(f.status) << "\">"
       << esc(to_string(f.status)) << "</span></td><td><code>" << esc(f.code) << "</code></td><td>"
       << esc(f.entity) << "</td><td>" << esc(f.message);
    if (!f.remediation.empty()) os << "<br/><em>Next:</em> " << esc(f.remediation);
    if (!f.evidence.empty() || !f.metrics.empty()) {
      os << "<details><summary>evidence</summary><dl>";
      for (const auto& [k, v] : f.evidence)
        os << "<dt>" << esc(k) << "</dt><dd>" << esc(v) << "</dd>";
      for (const auto& [k, m] : f.metrics)
        os << "<dt>" << esc(k) << "</dt><dd>" << num(m.value, "%.6g") << ' ' << esc(m.unit)
           << "</dd>";
      os << "</dl></details>";
    }
    os << "</td></tr>\n";
  }
  if (open) os << "</table>\n";
  os << "</body>\n</html>\n";
  return os.str();
}

}  // namespace hn::reports
