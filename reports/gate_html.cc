#include "reports/gate_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/svg_chart.h"

namespace hn::reports {

namespace {

using svg::esc;
using svg::num;

// One colour per series of the chart (docs/html-charts.md); the legend uses the same.
constexpr const char* kBand = "#bbdefb";
constexpr const char* kBaselineRun = "#616161";
constexpr const char* kWithin = "#1565c0";
constexpr const char* kRegressed = "#c62828";
constexpr const char* kImproved = "#2e7d32";

// Change from the centre in percent, signed so that better is positive.
double better_pct(const GatePage::Row& r, double v) {
  const double pct = (v - r.centre) / std::fabs(r.centre) * 100;
  return r.higher_is_better ? pct : -pct;
}

std::string short_name(const std::string& identity) {
  return identity.size() > 52 ? identity.substr(0, 49) + "..." : identity;
}

// One row per figure: its band, a tick per baseline run and the new value,
// as the change from the baseline centre with better to the right. Each
// series is one group (data-series) in one colour, with a legend entry.
void forest_chart(std::ostringstream& os, const std::vector<const GatePage::Row*>& rows) {
  double reach = 10;  // percent: at least +-10 % shown
  for (const auto* r : rows) {
    reach = std::max(reach, std::fabs(better_pct(*r, r->band_high)));
    reach = std::max(reach, std::fabs(better_pct(*r, r->value)));
    for (double v : r->baseline_values) reach = std::max(reach, std::fabs(better_pct(*r, v)));
  }
  reach = std::min(100.0, std::ceil(reach / 10) * 10);
  const int label = 360, width = 480, row_h = 22, top = 44;
  const int axis_y = top + static_cast<int>(rows.size()) * row_h + 6;
  auto X = [&](double pct) {
    pct = std::clamp(pct, -reach, reach);
    return num(label + (pct + reach) / (2 * reach) * width, "%.1f");
  };
  auto Y = [&](std::size_t i) { return top + static_cast<int>(i) * row_h; };
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"figures against their baseline bands\" "
        "width=\""
     << label + width + 40 << "\" height=\"" << axis_y + 46 << "\">\n";
  for (int i = -2; i <= 2; ++i) {
    const double pct = reach * i / 2;
    os << "<line x1=\"" << X(pct) << "\" x2=\"" << X(pct) << "\" y1=\"" << top - 4 << "\" y2=\""
       << axis_y << "\" stroke=\"" << (i == 0 ? "#333" : "#ddd") << "\"/><text x=\""
       << num(label + (pct + reach) / (2 * reach) * width - 14, "%.1f") << "\" y=\"" << axis_y + 16
       << "\">" << num(pct, "%+.0f") << "%</text>\n";
  }
  os << "<text x=\"" << label << "\" y=\"" << axis_y + 36
     << "\">worse  &#8592;  change from the baseline centre  &#8594;  better</text>\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    os << "<text x=\"0\" y=\"" << Y(i) + 15 << "\">" << esc(short_name(rows[i]->identity))
       << "<title>" << esc(rows[i]->identity) << "</title></text>\n";

  std::vector<std::pair<const char*, const char*>> legend;  // series, colour
  os << "<g data-series=\"baseline noise band\" fill=\"" << kBand << "\">\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto* r = rows[i];
    const double half = std::fabs(better_pct(*r, r->band_high));
    os << "<rect x=\"" << X(-half) << "\" y=\"" << Y(i) + 3 << "\" width=\""
       << num(std::max(1.0, (std::min(half, reach) * 2) / (2 * reach) * width), "%.1f")
       << "\" height=\"16\"><title>band " << esc(num(r->band_low)) << " .. "
       << esc(num(r->band_high)) << ' ' << esc(r->unit) << "</title></rect>\n";
  }
  os << "</g>\n";
  legend.emplace_back("baseline noise band", kBand);
  bool ticks = false;
  for (const auto* r : rows) ticks = ticks || !r->baseline_values.empty();
  if (ticks) {
    os << "<g data-series=\"baseline run\" stroke=\"" << kBaselineRun << "\">\n";
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (double v : rows[i]->baseline_values)
        os << "<line x1=\"" << X(better_pct(*rows[i], v)) << "\" x2=\""
           << X(better_pct(*rows[i], v)) << "\" y1=\"" << Y(i) + 5 << "\" y2=\"" << Y(i) + 17
           << "\"/>\n";
    os << "</g>\n";
    legend.emplace_back("baseline run", kBaselineRun);
  }
  struct Dots {
    const char* outcome;
    const char* series;
    const char* colour;
  };
  for (const Dots d : {Dots{"within", "new value: within the band", kWithin},
                       Dots{"regressed", "new value: regressed", kRegressed},
                       Dots{"improved", "new value: improved", kImproved}}) {
    bool any = false;
    for (const auto* r : rows) any = any || r->outcome == d.outcome;
    if (!any) continue;
    os << "<g data-series=\"" << d.series << "\" fill=\"" << d.colour << "\">\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto* r = rows[i];
      if (r->outcome != d.outcome) continue;
      os << "<circle cx=\"" << X(better_pct(*r, r->value)) << "\" cy=\"" << Y(i) + 11
         << "\" r=\"5\"><title>" << esc(num(r->value)) << ' ' << esc(r->unit) << " ("
         << esc(num(better_pct(*r, r->value), "%+.1f")) << "% better), " << esc(r->outcome)
         << "</title></circle>\n";
    }
    os << "</g>\n";
    legend.emplace_back(d.series, d.colour);
  }
  double x = 0;
  for (const auto& [series, colour] : legend) {
    svg::legend_entry(os, x, 4, series, colour, series);
    x += 30 + 7.0 * std::string_view(series).size();
  }
  os << "</svg>\n";
}

const char* status_class(Status s) {
  switch (s) {
    case Status::kFail:
    case Status::kError:
      return "bad";
    case Status::kWarn:
      return "warn";
    default:
      return "";
  }
}

}  // namespace

std::string render_gate_html(const Report& report, const GatePage& page) {
  std::ostringstream os;
  const Summary s = summarize(report.findings);
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>hnprecheck "
        "gate: "
     << esc(page.title) << "</title>\n<style>\n"
     << "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
        "text-align:left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right}"
        ".bad{color:#c62828;font-weight:bold}.warn{color:#ef6c00}"
        ".chart text{font-size:12px;fill:#222}\n"
     << "</style>\n</head>\n<body>\n<h1>hnprecheck gate: " << esc(page.title) << "</h1>\n";
  for (const auto& l : page.setup) os << "<p>" << esc(l) << "</p>\n";
  os << "<p><strong>"
     << (s.fail ? "BLOCKED: " + std::to_string(s.fail) + " regression(s)"
                : std::string("nothing regressed"))
     << "</strong> (" << s.pass << " pass, " << s.warn << " warn, " << s.fail << " fail, " << s.skip
     << " skip)</p>\n";

  std::vector<const GatePage::Row*> charted, uncharted;
  for (const auto& r : page.rows) (r.centre != 0 ? charted : uncharted).push_back(&r);
  std::stable_sort(charted.begin(), charted.end(), [](const auto* a, const auto* b) {
    auto rank = [](const std::string& o) { return o == "regressed" ? 0 : o == "improved" ? 2 : 1; };
    return rank(a->outcome) < rank(b->outcome);
  });
  os << "<h2>Figures against their baseline</h2>\n";
  if (!charted.empty()) forest_chart(os, charted);
  if (!uncharted.empty())
    os << "<p>" << uncharted.size()
       << " figure(s) with a baseline centre of 0 have no relative scale and are only in the "
          "table.</p>\n";
  os << "<table>\n<tr><th>figure</th><th>unit</th><th>better</th><th>baseline centre</th>"
        "<th>spread</th><th>runs</th><th>band</th><th>new value</th><th>outcome</th></tr>\n";
  for (const auto& r : page.rows)
    os << "<tr><td>" << esc(r.identity) << "</td><td>" << esc(r.unit) << "</td><td>"
       << (r.higher_is_better ? "higher" : "lower") << "</td><td class=\"n\">" << esc(num(r.centre))
       << "</td><td class=\"n\">" << esc(num(r.spread)) << "</td><td class=\"n\">" << r.n
       << "</td><td class=\"n\">" << esc(num(r.band_low)) << " .. " << esc(num(r.band_high))
       << "</td><td class=\"n\">" << esc(num(r.value)) << "</td><td"
       << (r.outcome == "regressed" ? " class=\"bad\"" : "") << ">" << esc(r.outcome)
       << "</td></tr>\n";
  os << "</table>\n<h2>Findings</h2>\n<table>\n<tr><th>status</th><th>code</th><th>entity</th>"
        "<th>message</th><th>next step</th></tr>\n";
  for (const auto& f : sorted_for_report(report.findings))
    os << "<tr><td class=\"" << status_class(f.status) << "\">" << esc(to_string(f.status))
       << "</td><td>" << esc(f.code) << "</td><td>" << esc(f.entity) << "</td><td>"
       << esc(f.message) << "</td><td>" << esc(f.remediation) << "</td></tr>\n";
  os << "</table>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace hn::reports
