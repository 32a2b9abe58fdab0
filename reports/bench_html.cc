#include "reports/bench_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/svg_chart.h"

namespace hn::reports {

namespace {

using svg::esc;

using svg::fmt;

std::string size_text(std::size_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (v >= 1024 && u < 3 && std::fmod(v, 1024) == 0) v /= 1024, ++u;
  return fmt("%g", v) + " " + units[u];
}

// busbw (GB/s, linear from 0) against size (log2); sizes of 0 bytes are left
// out of the curve.
void busbw_chart(std::ostringstream& os, const std::vector<BenchHtml::Row>& rows) {
  std::vector<const BenchHtml::Row*> pts;
  for (const auto& r : rows)
    if (r.bytes > 0) pts.push_back(&r);
  if (pts.empty()) return;
  double x0 = std::log2(static_cast<double>(pts.front()->bytes));
  double x1 = std::log2(static_cast<double>(pts.back()->bytes));
  if (x1 <= x0) x1 = x0 + 1;
  double top_bw = 0;
  for (const auto* r : pts) top_bw = std::max(top_bw, r->busbw);
  // A round axis maximum: 1, 2 or 5 times a power of ten.
  double step = std::pow(10, std::floor(std::log10(top_bw > 0 ? top_bw : 1)));
  double ymax = step;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * step >= top_bw) {
      ymax = m * step;
      break;
    }
  const int left = 60, top = 10, w = 560, h = 260;
  auto X = [&](std::size_t b) {
    return left + (std::log2(static_cast<double>(b)) - x0) / (x1 - x0) * w;
  };
  auto Y = [&](double v) { return top + h - v / ymax * h; };
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"busbw by size\" width=\"" << left + w + 40
     << "\" height=\"" << top + h + 50 << "\">\n";
  for (int i = 0; i <= 5; ++i) {
    double v = ymax * i / 5, y = Y(v);
    os << "<line x1=\"" << left << "\" x2=\"" << left + w << "\" y1=\"" << fmt("%.1f", y)
       << "\" y2=\"" << fmt("%.1f", y) << "\" stroke=\"#ddd\"/><text x=\"0\" y=\""
       << fmt("%.1f", y + 4) << "\">" << fmt("%g", v) << "</text>\n";
  }
  std::size_t shown = 0;
  const std::size_t every = std::max<std::size_t>(1, pts.size() / 8);
  for (const auto* r : pts)
    if (shown++ % every == 0)
      os << "<text x=\"" << fmt("%.1f", X(r->bytes) - 14) << "\" y=\"" << top + h + 18 << "\">"
         << esc(size_text(r->bytes)) << "</text>\n";
  os << "<text x=\"" << left + w / 2 - 40 << "\" y=\"" << top + h + 40
     << "\">message size</text><text x=\"" << left + 6 << "\" y=\"" << top + 12
     << "\">busbw (GB/s)</text>\n";
  os << "<polyline data-series=\"busbw\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\" "
        "points=\"";
  for (const auto* r : pts)
    os << fmt("%.1f", X(r->bytes)) << ',' << fmt("%.1f", Y(r->busbw)) << ' ';
  os << "\"/>\n";
  for (const auto* r : pts)
    os << "<circle cx=\"" << fmt("%.1f", X(r->bytes)) << "\" cy=\"" << fmt("%.1f", Y(r->busbw))
       << "\" r=\"3\" fill=\"" << (r->wrong > 0 ? "#c62828" : "#1565c0") << "\"><title>"
       << esc(size_text(r->bytes)) << ": " << fmt("%.3f", r->busbw) << " GB/s</title></circle>\n";
  // Top left, beside the axis label: small sizes have the lowest busbw, so
  // the curve rarely passes there.
  svg::legend_entry(os, left + 100, top + 2, "busbw", "#1565c0", "busbw");
  os << "</svg>\n";
}

}  // namespace

std::string render_bench_html(const BenchHtml& page) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>hnprecheck "
        "bench: "
     << esc(page.title) << "</title>\n<style>\n"
     << "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
        "text-align:right}th{background:#f3f3f3}.bad{color:#c62828;font-weight:bold}"
        ".chart text{font-size:12px;fill:#222}\n"
     << "</style>\n</head>\n<body>\n<h1>hnprecheck bench: " << esc(page.title) << "</h1>\n";
  for (const auto& l : page.setup) os << "<p>" << esc(l) << "</p>\n";
  long long wrong = 0;
  for (const auto& r : page.rows) wrong += std::max(0LL, r.wrong);
  os << "<p><strong>"
     << (wrong ? "FAILED: " + std::to_string(wrong) + " wrong element(s)"
               : std::string("every element was right"))
     << "</strong></p>\n<h2>Bus bandwidth by message size</h2>\n";
  busbw_chart(os, page.rows);
  os << "<h2>Table</h2>\n<table>\n<tr><th>size (B)</th><th>count</th><th>time (us)</th>"
        "<th>algbw (GB/s)</th><th>busbw (GB/s)</th><th>#wrong</th></tr>\n";
  for (const auto& r : page.rows)
    os << "<tr><td>" << r.bytes << "</td><td>" << r.count << "</td><td>" << fmt("%.2f", r.time_us)
       << "</td><td>" << fmt("%.3f", r.algbw) << "</td><td>" << fmt("%.3f", r.busbw) << "</td><td"
       << (r.wrong > 0 ? " class=\"bad\"" : "") << ">"
       << (r.wrong < 0 ? std::string("n/a") : std::to_string(r.wrong)) << "</td></tr>\n";
  os << "</table>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace hn::reports
