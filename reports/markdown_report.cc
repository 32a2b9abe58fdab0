#include "reports/markdown_report.h"

#include <algorithm>
#include <sstream>

#include "reports/report_time.h"
#include "reports/utf8.h"

namespace hn::reports {

namespace {

// One table cell. Backtick spans (the catalog's commands) stay code spans,
// where Markdown shows text as written: only `|` (a table rule even inside
// code) and line breaks are touched there. Elsewhere characters Markdown or
// HTML would read as markup are escaped, a backslash first so an escaped pipe
// cannot be undone. Invalid UTF-8 becomes U+FFFD.
std::string cell(std::string_view raw) {
  const std::string v = to_valid_utf8(raw);
  const bool balanced = std::count(v.begin(), v.end(), '`') % 2 == 0;
  std::string out;
  bool code = false;
  for (char c : v) {
    if (c == '`' && balanced) {
      code = !code;
      out += c;
      continue;
    }
    if (c == '|') {
      out += "\\|";
      continue;
    }
    if (c == '\n') {
      out += "<br>";
      continue;
    }
    if (c == '\r') continue;
    if (code) {
      out += c;
      continue;
    }
    switch (c) {
      case '\\':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
        out += '\\';
        out += c;
        break;
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string markdown_cell(std::string_view text) {
  return cell(text);
}

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
