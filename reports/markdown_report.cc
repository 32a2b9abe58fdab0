#include "reports/markdown_report.h"

#include <sstream>

#include "reports/report_time.h"

namespace hn::reports {

namespace {

// One table cell: pipes escaped, line breaks as <br>, backslashes kept.
std::string cell(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += "<br>";
    else if (c != '\r')
      out += c;
  }
  return out;
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::ostringstream os;
  const Summary s = summarize(report.findings);
  os << "# hnprecheck " << report.command << ": " << cell(report.hostname) << "\n\n";
  os << "Profile `" << cell(report.profile) << "`, finished "
     << format_iso8601_ms(report.finished_unix_ms) << ", hnprecheck " << report.tool_version
     << ".\n\n";
  os << "**" << s.total() << " checks: " << s.pass << " pass, " << s.warn << " warn, " << s.fail
     << " fail, " << s.skip << " skip, " << s.error << " error**\n";
  bool open = false;
  Layer current = Layer::kL1;
  for (const auto& f : sorted_for_report(report.findings)) {
    if (!open || f.layer != current) {
      current = f.layer;
      open = true;
      os << "\n## " << to_string(f.layer) << " " << layer_title(f.layer) << "\n\n"
         << "| status | code | entity | message | next step |\n"
         << "|---|---|---|---|---|\n";
    }
    os << "| " << to_string(f.status) << " | `" << cell(f.code) << "` | " << cell(f.entity) << " | "
       << cell(f.message) << " | " << cell(f.remediation) << " |\n";
  }
  return os.str();
}

}  // namespace hn::reports
