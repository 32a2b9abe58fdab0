#pragma once
// The `hnprecheck bench` sweep as one self-contained HTML page (inline CSS and
// SVG, no script): what was run, busbw against message size on a log2 axis
// (the curve nccl-tests users read), and the table with every size's time,
// algbw, busbw and wrong-element count. Plain data in, so this leaf module
// knows nothing of the communication stack.

#include <cstddef>
#include <string>
#include <vector>

namespace hn::reports {

struct BenchHtml {
  std::string title;               // "allreduce, 4 ranks, tcp"
  std::vector<std::string> setup;  // lines shown under the title
  struct Row {
    std::size_t bytes = 0, count = 0;
    double time_us = 0, algbw = 0, busbw = 0;  // GB/s
    long long wrong = 0;                       // -1: not checked
  };
  std::vector<Row> rows;
};

std::string render_bench_html(const BenchHtml& page);

}  // namespace hn::reports
