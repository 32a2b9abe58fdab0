#include "reports/step_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "reports/junit_report.h"
#include "reports/svg_chart.h"

namespace hn::reports {

namespace {

using svg::fmt;

std::string binary_bytes_text(double b) {
  if (b <= 0) return "-";
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) b /= 1024, ++u;
  return fmt(u ? "%.1f " : "%.0f ", b) + units[u];
}

std::string share(const StepTable& t, double ms) {
  return t.total_ms > 0 ? fmt("%.1f%%", 100 * ms / t.total_ms) : "-";
}

const char* colour(const std::string& layer) {
  if (layer == "L4") return "#2e7d32";
  if (layer == "L3") return "#1565c0";
  if (layer == "L2") return "#6a1b9a";
  if (layer == "L1") return "#ef6c00";
  return "#757575";
}

using svg::esc;

}  // namespace

std::string render_step_table_text(const StepTable& t) {
  std::size_t w = 4;
  for (const auto& r : t.rows) w = std::max(w, r.what.size());
  std::ostringstream os;
  os << "step time, " << t.layout << " (" << t.world << " ranks, mean of " << t.steps << " steps, "
     << t.basis << ")\n";
  auto line = [&](const std::string& layer, const std::string& what, const std::string& ms,
                  const std::string& sh, const std::string& calls, const std::string& bytes) {
    char b[256];
    std::snprintf(b, sizeof b, "  %-5s %-*s %10s %7s %7s %11s\n", layer.c_str(),
                  static_cast<int>(w), what.c_str(), ms.c_str(), sh.c_str(), calls.c_str(),
                  bytes.c_str());
    os << b;
  };
  line("layer", "what", "ms/step", "share", "calls", "bytes/step");
  for (const auto& r : t.rows)
    line(r.layer, r.what, fmt("%.3f", r.ms), share(t, r.ms), fmt("%.0f", r.calls),
         binary_bytes_text(r.bytes));
  line("", "total", fmt("%.3f", t.total_ms), share(t, t.total_ms), "", "");
  return os.str();
}

std::string render_step_table_html(const StepTable& t) {
  std::ostringstream os;
  os << "<h3>Step time, " << esc(t.layout) << "</h3>\n<p>" << t.world << " ranks, mean of "
     << t.steps << " steps, " << esc(t.basis) << ": " << fmt("%.3f", t.total_ms)
     << " ms per step</p>\n";
  const int left = 200, bar = 18, gap = 6, w = 420;
  double top = 0;
  for (const auto& r : t.rows) top = std::max(top, r.ms);
  if (top <= 0) top = 1;
  const int h = static_cast<int>(t.rows.size()) * (bar + gap) + 10;
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"step time by layer\" width=\""
     << left + w + 120 << "\" height=\"" << h << "\">\n";
  int y = 5;
  for (const auto& r : t.rows) {
    const double bw = r.ms / top * w;
    os << "<text x=\"0\" y=\"" << y + 13 << "\">" << esc(r.layer + " " + r.what) << "</text>"
       << "<rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << fmt("%.1f", std::max(bw, 1.0))
       << "\" height=\"" << bar << "\" fill=\"" << colour(r.layer) << "\"><title>"
       << esc(r.layer + " " + r.what) << ": " << fmt("%.3f", r.ms) << " ms</title></rect>"
       << "<text x=\"" << fmt("%.1f", left + std::max(bw, 1.0) + 6) << "\" y=\"" << y + 13 << "\">"
       << fmt("%.3f", r.ms) << " ms</text>\n";
    y += bar + gap;
  }
  os << "</svg>\n<table>\n<tr><th>layer</th><th>what</th><th>ms/step</th><th>share</th>"
        "<th>calls</th><th>bytes/step</th></tr>\n";
  for (const auto& r : t.rows)
    os << "<tr><td>" << esc(r.layer) << "</td><td>" << esc(r.what) << "</td><td>"
       << fmt("%.3f", r.ms) << "</td><td>" << share(t, r.ms) << "</td><td>" << fmt("%.0f", r.calls)
       << "</td><td>" << binary_bytes_text(r.bytes) << "</td></tr>\n";
  os << "<tr><th></th><th>total</th><th>" << fmt("%.3f", t.total_ms)
     << "</th><th></th><th></th><th></th></tr>\n</table>\n";
  return os.str();
}

}  // namespace hn::reports
