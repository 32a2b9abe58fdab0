#pragma once
// The human report: one line per finding, grouped by layer L1..L7 so a person
// walks the stack top to bottom, with the next step under every problem.

#include <string>

#include "reports/finding.h"

namespace hn::reports {

struct TextOptions {
  bool color = false;    // ANSI colours; the caller decides (see stdout_is_tty)
  bool verbose = false;  // also print every finding's evidence and metrics
  // --quiet: list only WARN, FAIL and ERROR findings (the summary line still
  // counts everything), so a Prolog log holds just what needs attention.
  bool only_problems = false;
};

// Header (command, host, profile), then each layer that has findings with its
// findings in sorted_for_report() order and aligned columns (status, code,
// entity, message); WARN, FAIL and ERROR get an indented "-> remediation"
// line. Ends with "N checks: a pass, b warn, c fail, d skip, e error in T s".
// Control characters in finding text are shown as '?', so a hostile entity
// name cannot move the cursor or break a line. Never inspects the terminal.
std::string render_text(const Report& report, const TextOptions& options);

// True when stdout is a terminal: the usual default for TextOptions::color.
bool stdout_is_tty();

}  // namespace hn::reports
