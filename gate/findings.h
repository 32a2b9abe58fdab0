#pragma once
// Turns a Comparison into findings (reports/catalog_gate.cc owns the words)
// and counts its outcomes. One finding per judged, missing, unjudged,
// mismatched or new figure, per check, per significant or review drift and
// per compared host. Informational and ignored figures and ignored checks get
// no finding: Tally counts them, and the text and JSON outputs show them.

#include <string>
#include <vector>

#include "gate/compare.h"
#include "reports/finding.h"

namespace hn::gate {

std::vector<reports::Finding> gate_findings(const Comparison& c);

struct Tally {
  int judged = 0, regressed = 0, improved = 0, missing = 0, unjudged = 0, mismatched = 0,
      informational = 0, new_figures = 0, ignored = 0, no_baseline_value = 0;
  int checks = 0, checks_regressed = 0, checks_still_failing = 0, checks_missing = 0,
      checks_ignored = 0;
  int hosts = 0, significant = 0, review = 0, not_significant = 0, hosts_missing = 0;
};
Tally tally(const Comparison& c);

// "3 figures judged (1 regressed, 0 improved), ..." lines for the terminal.
std::vector<std::string> tally_lines(const Tally& t);

// Numbers in messages: about three significant digits ("3.21", "148", "0.0123").
std::string format_value(double v);
// A share as a percentage: 0.15 -> "15%", 0.125 -> "12.5%".
std::string format_percent(double share);

}  // namespace hn::gate
