#pragma once
// The human report: one line per finding, grouped by layer L1..L7 so a person
// walks the stack top to bottom, with the next step under every problem.

#include <cstddef>
#include <string>
#include <vector>

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

// The pieces render_text is made of, for reports laid out otherwise
// (migrate groups findings by concern, not by layer):
//  * column widths over the findings that will be shown together;
//  * their aligned lines (status, code, entity, message; "-> remediation"
//    under each problem; evidence and metrics with options.verbose);
//  * the closing "N checks: ..." line;
//  * a heading, bold on a colour terminal.
struct FindingColumns {
  std::size_t code = 4;
  std::size_t entity = 0;
};
FindingColumns finding_columns(const std::vector<Finding>& findings);
std::string render_finding_lines(const std::vector<Finding>& findings,
                                 const FindingColumns& columns, const TextOptions& options);
std::string render_summary_line(const Report& report, const TextOptions& options);
std::string text_heading(const std::string& text, const TextOptions& options);
// Text from a report made safe for one terminal line (controls become '?').
std::string printable_text(const std::string& s);

// True when stdout is a terminal: the usual default for TextOptions::color.
bool stdout_is_tty();

}  // namespace hn::reports
