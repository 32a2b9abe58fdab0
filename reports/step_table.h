#pragma once
// The step-time table of the model phase: where one training step's time
// went, by layer of the stack (L4 compute, each L3 collective per process
// group with its bytes, L2 optimizer and the rest, L1 data), as plain data,
// and its renderings: an aligned text table for the text report and an HTML
// fragment (a bar per row, inline SVG, and the table) for HTML pages.

#include <cstdint>
#include <string>
#include <vector>

namespace hn::reports {

struct StepTable {
  std::string layout;  // "tp=2,pp=2,dp=2"
  int world = 0;
  int steps = 0;        // steps the means are over
  std::string basis;    // what a row's figure is: "slowest rank", "rank 3"
  double total_ms = 0;  // mean wall time of a step
  struct Row {
    std::string layer;  // "L4", "L3", "L2", "L1"
    std::string what;   // "compute", "allgather tp", ...
    double ms = 0;      // mean per step
    double bytes = 0;   // mean per step (sent by the rank), 0 when not applicable
    double calls = 0;   // mean per step
  };
  std::vector<Row> rows;
};

// Rows in table order, with a share of the step and a total line:
//   layer  what            ms/step  share  calls  bytes/step
std::string render_step_table_text(const StepTable& t);
// <h3>, an SVG bar chart of ms per row (coloured by layer) and the table.
std::string render_step_table_html(const StepTable& t);

}  // namespace hn::reports
