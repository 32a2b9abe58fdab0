#include "reports/svg_chart.h"

#include <cstdio>

#include "reports/junit_report.h"

namespace hn::reports::svg {

std::string esc(std::string_view v) {
  return xml_escape(v, false);
}

std::string num(double v, const char* format) {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

const char* status_colour(Status s) {
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
  return "#222";
}

std::string series_colour(std::size_t i) {
  static const char* const kPalette[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                         "#56b4e9", "#d55e00", "#000000", "#7f7f7f"};
  constexpr std::size_t n = sizeof kPalette / sizeof *kPalette;
  if (i < n) return kPalette[i];
  // 137.5 degrees apart never repeats a hue; lightness alternates so that
  // neighbours differ in two ways.
  const double hue = static_cast<double>((i - n) * 1375 % 3600) / 10;
  return "hsl(" + num(hue, "%.1f") + ", 70%, " + ((i % 2) ? "35%" : "50%") + ")";
}

void legend_entry(std::ostream& os, double x, double y, std::string_view series,
                  std::string_view colour, std::string_view label, std::string_view note,
                  std::string_view note_colour) {
  os << "<g data-legend=\"" << esc(series) << "\"><rect x=\"" << num(x) << "\" y=\"" << num(y)
     << "\" width=\"12\" height=\"12\" fill=\"" << esc(colour) << "\"/><text x=\"" << num(x + 18)
     << "\" y=\"" << num(y + 11) << "\">" << esc(label);
  if (!note.empty())
    os << " <tspan style=\"fill:" << esc(note_colour) << "\">" << esc(note) << "</tspan>";
  os << "</text></g>\n";
}

}  // namespace hn::reports::svg
