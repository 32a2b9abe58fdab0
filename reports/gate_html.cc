#include "reports/gate_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/junit_report.h"

namespace hn::reports {

namespace {

std::string esc(std::string_view v) {
  return xml_escape(v, false);
}

std::string num(double v, const char* f = "%.4g") {
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// One colour per series of the chart; the legend uses the same.
constexpr const char* kBand = "#bbdefb";
constexpr const char* kBaselineRun = "#616161";
constexpr const char* kWithin = "#1565c0";
constexpr const char* kRegressed = "#c62828";
constexpr const char* kImproved = "#2e7d32";

const char* outcome_colour(const std::string& outcome) {
  return outcome == "regressed" ? kRegressed : outcome == "improved" ? kImproved : kWithin;
}

// Change from the centre in percent, signed so that better is positive.
double better_pct(const GatePage::Row& r, double v) {
  const double pct = (v - r.centre) / std::fabs(r.centre) * 100;
  return r.higher_is_better ? pct : -pct;
}

void legend(std::ostringstream& os, int x, int y) {
  struct Item {
    const char* colour;
    const char* label;
    bool dot;
  };
  const Item items[] = {{kBand, "baseline noise band", false},
                        {kBaselineRun, "baseline run", false},
                        {kWithin, "new value: within the band", true},
                        {kRegressed, "new value: regressed", true},
                        {kImproved, "new value: improved", true}};
  os << "<g class=\"legend\">\n";
  for (const auto& it : items) {
    if (it.dot)
      os << "<circle cx=\"" << x + 6 << "\" cy=\"" << y - 4 << "\" r=\"5\" fill=\"" << it.colour
         << "\"/>";
    else
      os << "<rect x=\"" << x << "\" y=\"" << y - 10 << "\" width=\"12\" height=\"12\" fill=\""
         << it.colour << "\"/>";
    os << "<text x=\"" << x + 18 << "\" y=\"" << y << "\">" << it.label << "</text>\n";
    x += 40 + static_cast<int>(std::string_view(it.label).size()) * 7;
  }
  os << "</g>\n";
}

void forest_chart(std::ostringstream& os, const std::vector<const GatePage::Row*>& rows) {
  double reach = 10;  // percent: at least +-10 % shown
  for (const auto* r : rows) {
    reach = std::max(reach, std::fabs(better_pct(*r, r->band_high)));
    reach = std::max(reach, std::fabs(better_pct(*r, r->value)));
    for (double v : r->baseline_values) reach = std::max(reach, std::fabs(better_pct(*r, v)));
  }
  reach = std::min(100.0, std::ceil(reach / 10) * 10);
  const int label = 360, width = 480, row_h = 22, top = 40;
  const int height = top + static_cast<int>(rows.size()) * row_h + 50;
  auto X = [&](double pct) {
    pct = std::clamp(pct, -reach, reach);
    return label + (pct + reach) / (2 * reach) * width;
  };
  os << "<svg class=\"chart\" role=\"img\" aria-label=\"figures against their baseline bands\" "
        "width=\""
     << label + width + 40 << "\" height=\"" << height << "\">\n";
  legend(os, 0, 16);
  const int axis_y = top + static_cast<int>(rows.size()) * row_h + 6;
  for (int i = -2; i <= 2; ++i) {
    const double pct = reach * i / 2;
    os << "<line x1=\"" << num(X(pct), "%.1f") << "\" x2=\"" << num(X(pct), "%.1f") << "\" y1=\""
       << top - 4 << "\" y2=\"" << axis_y << "\" stroke=\"" << (i == 0 ? "#333" : "#ddd")
       << "\"/><text x=\"" << num(X(pct) - 14, "%.1f") << "\" y=\"" << axis_y + 16 << "\">"
       << num(pct, "%+.0f") << "%</text>\n";
  }
  os << "<text x=\"" << label << "\" y=\"" << axis_y + 36
     << "\">worse  &#8592;  change from the baseline centre  &#8594;  better</text>\n";
  int y = top;
  for (const auto* r : rows) {
    const double half = std::fabs(better_pct(*r, r->band_high));
    std::string name = r->identity;
    if (name.size() > 52) name = name.substr(0, 49) + "...";
    os << "<text x=\"0\" y=\"" << y + 15 << "\">" << esc(name) << "<title>" << esc(r->identity)
       << "</title></text>\n";
    os << "<rect x=\"" << num(X(-half), "%.1f") << "\" y=\"" << y + 3 << "\" width=\""
       << num(X(half) - X(-half), "%.1f") << "\" height=\"16\" fill=\"" << kBand
       << "\"><title>band " << esc(num(r->band_low)) << " .. " << esc(num(r->band_high)) << ' '
       << esc(r->unit) << "</title></rect>\n";
    for (double v : r->baseline_values)
      os << "<line x1=\"" << num(X(better_pct(*r, v)), "%.1f") << "\" x2=\""
         << num(X(better_pct(*r, v)), "%.1f") << "\" y1=\"" << y + 5 << "\" y2=\"" << y + 17
         << "\" stroke=\"" << kBaselineRun << "\"/>\n";
    os << "<circle cx=\"" << num(X(better_pct(*r, r->value)), "%.1f") << "\" cy=\"" << y + 11
       << "\" r=\"5\" fill=\"" << outcome_colour(r->outcome) << "\"><title>" << esc(num(r->value))
       << ' ' << esc(r->unit) << " (" << esc(num(better_pct(*r, r->value), "%+.1f"))
       << "% better), " << esc(r->outcome) << "</title></circle>\n";
    y += row_h;
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
