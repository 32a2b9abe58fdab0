#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "reports/junit_report.h"
#include "reports/report_time.h"

namespace hn::reports {

namespace {

// Text and attribute values: the XML escaping of the JUnit emitter, which
// also replaces invalid UTF-8 and control characters.
std::string esc(std::string_view v) {
  return xml_escape(v, false);
}

std::string num(double v, const char* f = "%.4g") {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

const char* colour(Status s) {
  switch (s) {
    case Status::kPass:
      return "#2e7d32";
    case Status::kWarn:
      return "#ef6c00";
    case Status::kFail:
      return "#c62828";
    case Status::kSkip:
      return "#757575";
    case Status::kError:
      return "#6a1b9a";
  }
  return "#000";
}

constexpr Status kOrder[] = {Status::kFail, Status::kError, Status::kWarn, Status::kSkip,
                             Status::kPass};

// One horizontal bar per layer that has findings, segments by status.
void layer_chart(std::ostringstream& os, const std::vector<Finding>& findings) {
  std::map<Layer, std::map<Status, int>> counts;
  int widest = 1;
  for (const auto& f : findings) ++counts[f.layer][f.status];
  for (const auto& [layer, by] : counts) {
    int n = 0;
    for (const auto& [st, c] : by) n += c;
    widest = std::max(widest, n);
  }
  const int row = 26, label = 230, width = 420;
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"findings per layer\" width=\""
     << label + width + 60 << "\" height=\"" << row * counts.size() + 10 << "\">\n";
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
      os << "<rect x=\"" << num(x) << "\" y=\"" << y << "\" width=\"" << num(w)
         << "\" height=\"20\" fill=\"" << colour(st) << "\"><title>" << it->second << ' '
         << esc(to_string(st)) << "</title></rect>\n";
      x += w;
      total += it->second;
    }
    os << "<text x=\"" << num(x + 6) << "\" y=\"" << y + 16 << "\">" << total << "</text>\n";
    y += row;
  }
  os << "</svg>\n";
}

struct Curve {
  std::string name;
  Status status;
  std::vector<std::pair<double, double>> points;  // (percentile, ms)
};

// Latency at p50/p90/p99/p99.9: x evenly spaced (the "nines"), y log10(ms).
void latency_chart(std::ostringstream& os, const std::vector<Finding>& findings) {
  static const std::pair<const char*, double> kPoints[] = {
      {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}};
  std::vector<Curve> curves;
  for (const auto& f : findings) {
    Curve c{f.code + " " + f.entity, f.status, {}};
    for (const auto& [name, pct] : kPoints) {
      auto it = f.metrics.find(name);
      if (it == f.metrics.end() || it->second.unit != "ms" || !(it->second.value > 0)) break;
      c.points.emplace_back(pct, it->second.value);
    }
    if (c.points.size() == 4) curves.push_back(std::move(c));
  }
  if (curves.empty()) return;
  double lo = 1e300, hi = 0;
  for (const auto& c : curves)
    for (const auto& [p, ms] : c.points) lo = std::min(lo, ms), hi = std::max(hi, ms);
  double l0 = std::floor(std::log10(lo)), l1 = std::ceil(std::log10(hi));
  if (l1 <= l0) l1 = l0 + 1;
  const int left = 70, top = 10, w = 420, h = 220;
  auto ypos = [&](double ms) { return top + h - (std::log10(ms) - l0) / (l1 - l0) * h; };
  os << "<h2>Storage latency percentiles</h2>\n"
     << "<svg class=\"chart\" role=\"img\" aria-label=\"latency percentiles\" width=\""
     << left + w + 320 << "\" height=\"" << top + h + 40 << "\">\n";
  for (double d = l0; d <= l1; d += 1) {
    double y = ypos(std::pow(10, d));
    os << "<line x1=\"" << left << "\" x2=\"" << left + w << "\" y1=\"" << num(y) << "\" y2=\""
       << num(y) << "\" stroke=\"#ddd\"/><text x=\"0\" y=\"" << num(y + 4) << "\">"
       << num(std::pow(10, d), "%g") << " ms</text>\n";
  }
  for (int i = 0; i < 4; ++i)
    os << "<text x=\"" << left + i * w / 3 - 10 << "\" y=\"" << top + h + 20 << "\">"
       << kPoints[i].first << "</text>\n";
  int legend = top + 12;
  for (const auto& c : curves) {
    os << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour(c.status)
       << "\" points=\"";
    for (int i = 0; i < 4; ++i)
      os << left + i * w / 3 << ',' << num(ypos(c.points[static_cast<std::size_t>(i)].second))
         << ' ';
    os << "\"><title>" << esc(c.name) << "</title></polyline>\n";
    os << "<text x=\"" << left + w + 12 << "\" y=\"" << legend << "\" fill=\"" << colour(c.status)
       << "\">" << esc(c.name) << "</text>\n";
    legend += 16;
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
    os << "<span class=\"st\" style=\"background:" << colour(st) << "\">" << n << ' '
       << esc(to_string(st)) << "</span> ";
  os << "</p>\n<h2>Findings per layer</h2>\n";
  layer_chart(os, report.findings);
  latency_chart(os, sorted);
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
    os << "<tr><td><span class=\"st\" style=\"background:" << colour(f.status) << "\">"
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
