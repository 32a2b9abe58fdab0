#pragma once
// What the HTML pages' inline SVG charts share: escaping, numbers, the series
// colours and the legend entry. It also carries the markup contract of
// docs/html-charts.md, which tests/reports/html_browser_test.cc checks in a
// real browser for every page: a chart is an <svg class="chart">, each of its
// series is marked data-series="<name>" and drawn in a colour no other series
// of the chart has, and each series has a legend entry data-legend="<name>"
// whose swatch is drawn in that colour. Pure functions; nothing here throws.

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "reports/finding.h"

namespace hn::reports::svg {

// Text and attribute values: the XML escaping of the JUnit emitter, which also
// replaces invalid UTF-8 and control characters.
std::string esc(std::string_view v);

// printf-formatted number for coordinates and labels ("%.4g" by default).
std::string num(double v, const char* format = "%.4g");
// The same with printf's argument order, for text built around one number.
inline std::string fmt(const char* format, double v) {
  return num(v, format);
}

// The colour every page gives a status (PASS green, WARN orange, FAIL red,
// SKIP grey, ERROR purple).
const char* status_colour(Status s);

// The colour of a chart's i-th series: eight colour-blind-safe colours
// (Okabe-Ito, without its yellow, which does not show on white), then hues
// spaced by the golden angle, so no two series of a chart share a colour.
std::string series_colour(std::size_t i);

// One legend entry with its top-left corner at (x, y): a 12x12 swatch in
// `colour` and the label, then `note` (may be empty) in `note_colour`.
// Marked data-legend="<series>". Takes 16 px of height.
void legend_entry(std::ostream& os, double x, double y, std::string_view series,
                  std::string_view colour, std::string_view label, std::string_view note = {},
                  std::string_view note_colour = "#222");

}  // namespace hn::reports::svg
