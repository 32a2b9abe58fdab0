#include "reports/html_latency_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "reports/svg_chart.h"

namespace hn::reports {

namespace {

using svg::esc;
using svg::num;

struct Percentile {
  const char* metric;  // the finding's metric name
  const char* label;   // the axis label
  const char* suffix;  // the limit finding's code ends in it
};
constexpr std::array<Percentile, 4> kPercentiles = {{{"p50", "p50", "-P50"},
                                                     {"p90", "p90", "-P90"},
                                                     {"p99", "p99", "-P99"},
                                                     {"p999", "p99.9", "-P999"}}};

struct Limits {
  std::optional<double> warn, fail;
  bool operator==(const Limits&) const = default;
};

struct Series {
  std::string entity, name, path;
  std::array<double, 4> ms{};
  bool has_curve = false;
  Status worst = Status::kPass;
  std::array<Limits, 4> limits{};
};

// A limit as the evidence carries it: a number, or "none".
std::optional<double> limit_value(const Finding& f, const char* key) {
  auto it = f.evidence.find(key);
  if (it == f.evidence.end()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::string evidence_or(const Finding& f, const char* key, const std::string& fallback) {
  auto it = f.evidence.find(key);
  return it == f.evidence.end() || it->second.empty() ? fallback : it->second;
}

// One series per entity, in the order the entities first appear.
std::vector<Series> collect(const std::vector<Finding>& findings) {
  std::vector<Series> out;
  std::map<std::string, std::size_t> index;
  for (const auto& f : findings) {
    auto [it, added] = index.emplace(f.entity, out.size());
    if (added) out.push_back(Series{f.entity, f.entity, "", {}, false, f.status, {}});
    Series& s = out[it->second];
    if (severity_rank(f.status) < severity_rank(s.worst)) s.worst = f.status;
    if (!s.has_curve) {
      std::array<double, 4> ms{};
      bool all = true;
      for (std::size_t i = 0; i < kPercentiles.size() && all; ++i) {
        auto m = f.metrics.find(kPercentiles[i].metric);
        all = m != f.metrics.end() && m->second.unit == "ms" && m->second.value > 0 &&
              std::isfinite(m->second.value);
        if (all) ms[i] = m->second.value;
      }
      if (all) {
        s.ms = ms;
        s.has_curve = true;
        // A workload names its line only inside the chart of its path.
        s.path = evidence_or(f, "path", "");
        s.name = s.path.empty() ? f.entity : evidence_or(f, "workload", f.entity);
      }
    }
    for (std::size_t i = 0; i < kPercentiles.size(); ++i)
      if (f.code.ends_with(kPercentiles[i].suffix)) {
        Limits l{limit_value(f, "warn_ms"), limit_value(f, "fail_ms")};
        if (l.warn || l.fail) s.limits[i] = l;
      }
  }
  std::erase_if(out, [](const Series& s) { return !s.has_curve; });
  return out;
}

void chart(std::ostream& os, const std::vector<const Series*>& series) {
  const auto& limits = series.front()->limits;
  double lo = 1e300, hi = 0;
  auto widen = [&](double ms) { lo = std::min(lo, ms), hi = std::max(hi, ms); };
  for (const Series* s : series)
    for (double ms : s->ms) widen(ms);
  for (const Limits& l : limits) {
    if (l.warn) widen(*l.warn);
    if (l.fail) widen(*l.fail);
  }
  const double l0 = std::floor(std::log10(lo));
  double l1 = std::ceil(std::log10(hi));
  if (l1 <= l0) l1 = l0 + 1;
  const double left = 70, top = 10, w = 420, h = 220, step = w / 3;
  const double legend_x = left + w + 24;
  auto x_at = [&](std::size_t i) { return left + static_cast<double>(i) * step; };
  auto y_at = [&](double ms) { return top + h - (std::log10(ms) - l0) / (l1 - l0) * h; };
  bool any_warn = false, any_fail = false;
  for (const Limits& l : limits) any_warn |= l.warn.has_value(), any_fail |= l.fail.has_value();
  const double rows = static_cast<double>(series.size()) + (any_warn ? 1 : 0) + (any_fail ? 1 : 0);
  const double height = std::max(top + h + 40, top + 16 * rows + 10);
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"latency percentiles\" width=\""
     << num(legend_x + 260) << "\" height=\"" << num(height) << "\">\n";
  // Bands first, so that the lines are drawn over them: at each percentile,
  // from its warn limit up to its fail limit, and from its fail limit up.
  for (std::size_t i = 0; i < limits.size(); ++i) {
    const double x0 = std::max(left, x_at(i) - step / 2),
                 x1 = std::min(left + w, x_at(i) + step / 2);
    auto band = [&](const char* kind, double from_ms, double to_y, const char* fill) {
      const double y = to_y, bottom = y_at(from_ms);
      os << "<rect data-band=\"" << kind << "\" x=\"" << num(x0) << "\" y=\"" << num(y)
         << "\" width=\"" << num(x1 - x0) << "\" height=\"" << num(bottom - y) << "\" fill=\""
         << fill << "\" fill-opacity=\"0.16\"><title>" << kind << " above " << num(from_ms, "%g")
         << " ms at " << kPercentiles[i].label << "</title></rect>\n";
    };
    const Limits& l = limits[i];
    if (l.warn) band("warn", *l.warn, l.fail ? y_at(*l.fail) : top, "#ef6c00");
    if (l.fail) band("fail", *l.fail, top, "#c62828");
  }
  for (double d = l0; d <= l1; d += 1) {
    const double y = y_at(std::pow(10, d));
    os << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + w) << "\" y1=\"" << num(y)
       << "\" y2=\"" << num(y) << "\" stroke=\"#ddd\"/><text x=\"0\" y=\"" << num(y + 4) << "\">"
       << num(std::pow(10, d), "%g") << " ms</text>\n";
  }
  for (std::size_t i = 0; i < kPercentiles.size(); ++i)
    os << "<text x=\"" << num(x_at(i) - 10) << "\" y=\"" << num(top + h + 20) << "\">"
       << kPercentiles[i].label << "</text>\n";
  double legend_y = top;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Series& s = *series[k];
    const std::string colour = svg::series_colour(k);
    os << "<g data-series=\"" << esc(s.name) << "\" stroke=\"" << colour << "\" fill=\"" << colour
       << "\"><title>" << esc(s.name) << " (" << esc(s.entity) << ")</title><polyline fill=\"none\""
       << " stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < s.ms.size(); ++i)
      os << num(x_at(i)) << ',' << num(y_at(s.ms[i])) << ' ';
    os << "\"/>";
    for (std::size_t i = 0; i < s.ms.size(); ++i)
      os << "<circle cx=\"" << num(x_at(i)) << "\" cy=\"" << num(y_at(s.ms[i]))
         << "\" r=\"3\"><title>" << esc(s.name) << ' ' << kPercentiles[i].label << ": "
         << num(s.ms[i], "%.4g") << " ms</title></circle>";
    os << "</g>\n";
    svg::legend_entry(os, legend_x, legend_y, s.name, colour, s.name,
                      s.worst == Status::kPass ? "" : std::string(to_string(s.worst)),
                      svg::status_colour(s.worst));
    legend_y += 16;
  }
  // The bands' own key (not series: they carry no data-legend).
  auto band_key = [&](const char* fill, const char* text) {
    os << "<g data-band-key=\"\"><rect x=\"" << num(legend_x) << "\" y=\"" << num(legend_y)
       << "\" width=\"12\" height=\"12\" fill=\"" << fill << "\" fill-opacity=\"0.3\"/><text x=\""
       << num(legend_x + 18) << "\" y=\"" << num(legend_y + 11) << "\">" << text << "</text></g>\n";
    legend_y += 16;
  };
  if (any_warn) band_key("#ef6c00", "above the warn limit");
  if (any_fail) band_key("#c62828", "above the fail limit");
  os << "</svg>\n";
}

}  // namespace

void latency_charts(std::ostream& os, const std::vector<Finding>& findings) {
  const std::vector<Series> all = collect(findings);
  if (all.empty()) return;
  // Charts by path and limits, in the order their first series appears.
  std::vector<std::vector<const Series*>> charts;
  for (const Series& s : all) {
    auto same = [&](const std::vector<const Series*>& c) {
      return c.front()->path == s.path && c.front()->limits == s.limits;
    };
    auto it = std::find_if(charts.begin(), charts.end(), same);
    if (it == charts.end())
      charts.push_back({&s});
    else
      it->push_back(&s);
  }
  os << "<h2>Storage latency percentiles</h2>\n";
  for (const auto& c : charts) {
    if (!c.front()->path.empty()) os << "<h3>" << esc(c.front()->path) << "</h3>\n";
    chart(os, c);
  }
}

}  // namespace hn::reports
