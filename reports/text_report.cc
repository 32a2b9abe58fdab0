#include "reports/text_report.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>
#include <vector>

#include "reports/utf8.h"

namespace hn::reports {

namespace {

constexpr const char* kReset = "\033[0m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kDim = "\033[2m";

const char* status_color(Status s) {
  switch (s) {
    case Status::kPass:
      return "\033[32m";  // green
    case Status::kWarn:
      return "\033[33m";  // yellow
    case Status::kFail:
      return "\033[31m";  // red
    case Status::kSkip:
      return "\033[90m";  // grey
    case Status::kError:
      return "\033[35m";  // magenta
  }
  return "";
}

// One terminal line per field: tabs and newlines become spaces, other C0 and
// C1 controls (ESC, CSI) become '?', so text from the system cannot drive the
// terminal.
std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t pos = 0; pos < s.size();) {
    char32_t c = next_code_point(s, pos);
    if (c == '\t' || c == '\n' || c == '\r')
      out += ' ';
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0))
      out += '?';
    else
      append_utf8(out, c);
  }
  return out;
}

std::string pad(const std::string& s, std::size_t width) {
  std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

class Writer {
 public:
  explicit Writer(bool color) : color_(color) {}
  // Colour wraps already padded text, so escape codes never skew the columns.
  Writer& styled(const char* style, const std::string& text) {
    if (color_) out_ += style;
    out_ += text;
    if (color_) out_ += kReset;
    return *this;
  }
  Writer& plain(const std::string& text) {
    out_ += text;
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  bool color_;
  std::string out_;
};

bool is_problem(Status s) {
  return s == Status::kWarn || s == Status::kFail || s == Status::kError;
}

// Entities can be long (a rank pair, a mount path); past this width they
// push the message right instead of widening every line.
constexpr std::size_t kMaxEntityColumn = 32;

}  // namespace

FindingColumns finding_columns(const std::vector<Finding>& findings) {
  FindingColumns c;
  for (const auto& f : findings) {
    c.code = std::max(c.code, display_width(printable(f.code)));
    c.entity = std::max(c.entity, std::min(kMaxEntityColumn, display_width(printable(f.entity))));
  }
  return c;
}

std::string render_finding_lines(const std::vector<Finding>& findings,
                                 const FindingColumns& columns, const TextOptions& options) {
  constexpr std::size_t kStatusW = 5;  // "ERROR"
  const std::string indent = "  ";
  // Detail lines start under the code column.
  const std::string detail = indent + std::string(kStatusW + 2, ' ');
  Writer w(options.color);
  for (const Finding& f : findings) {
    w.plain(indent)
        .styled(status_color(f.status), pad(std::string(to_string(f.status)), kStatusW))
        .plain("  " + pad(printable(f.code), columns.code) + "  ");
    std::string entity = printable(f.entity);
    w.plain(columns.entity > 0 ? pad(entity, columns.entity) + "  " : "");
    w.plain(printable(f.message) + "\n");
    if (is_problem(f.status) && !f.remediation.empty())
      w.plain(detail + "-> " + printable(f.remediation) + "\n");
    if (!options.verbose) continue;
    for (const auto& [k, v] : f.evidence)
      w.styled(kDim, detail + "evidence " + printable(k) + " = " + printable(v)).plain("\n");
    for (const auto& [name, m] : f.metrics)
      w.styled(kDim, detail + "metric   " + printable(name) + " = " + format_number(m.value) +
                         (m.unit.empty() ? "" : " ") + printable(m.unit))
          .plain("\n");
    if (f.duration_ms > 0)
      w.styled(kDim, detail + "took     " + format_number(f.duration_ms) + " ms").plain("\n");
  }
  return w.take();
}

std::string render_summary_line(const Report& report, const TextOptions& options) {
  Writer w(options.color);
  Summary s = summarize(report.findings);
  std::int64_t ms = report.finished_unix_ms - report.started_unix_ms;
  char tail[64];
  // A Prolog check takes milliseconds; "0.00 s" would hide how fast it was.
  if (ms < 1000)
    std::snprintf(tail, sizeof tail, " in %lld ms", static_cast<long long>(ms));
  else
    std::snprintf(tail, sizeof tail, " in %.2f s", static_cast<double>(ms) / 1000.0);
  w.plain(std::to_string(s.total()) + " checks: ");
  const std::pair<Status, int> counts[] = {{Status::kPass, s.pass},
                                           {Status::kWarn, s.warn},
                                           {Status::kFail, s.fail},
                                           {Status::kSkip, s.skip},
                                           {Status::kError, s.error}};
  for (const auto& [status, n] : counts) {
    std::string word = std::to_string(n) + " " + std::string(to_string(status));
    std::transform(word.begin(), word.end(), word.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (status != Status::kPass) w.plain(", ");
    // Only non-zero counts are coloured, so the eye goes to what happened.
    if (n > 0)
      w.styled(status_color(status), word);
    else
      w.plain(word);
  }
  w.plain(std::string(tail) + "\n");
  return w.take();
}

std::string text_heading(const std::string& text, const TextOptions& options) {
  Writer w(options.color);
  w.styled(kBold, printable(text));
  return w.take();
}

std::string render_text(const Report& report, const TextOptions& options) {
  std::vector<Finding> findings;
  for (const auto& f : sorted_for_report(report.findings))
    if (!options.only_problems || is_problem(f.status)) findings.push_back(f);
  const FindingColumns columns = finding_columns(findings);

  Writer w(options.color);
  w.styled(kBold, "hnprecheck " + printable(report.command))
      .plain("  host " + printable(report.hostname) + "  profile " +
             printable(report.profile.empty() ? "-" : report.profile) + "\n");

  for (std::size_t i = 0; i < findings.size();) {
    Layer layer = findings[i].layer;
    std::size_t end = i;
    while (end < findings.size() && findings[end].layer == layer) ++end;
    w.plain("\n");
    w.styled(kBold, std::string(to_string(layer)) + " " + std::string(layer_title(layer)))
        .plain("\n");
    w.plain(render_finding_lines(
        {findings.begin() + static_cast<long>(i), findings.begin() + static_cast<long>(end)},
        columns, options));
    i = end;
  }
  w.plain("\n" + render_summary_line(report, options));
  return w.take();
}

std::string printable_text(const std::string& s) {
  return printable(s);
}

bool stdout_is_tty() {
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace hn::reports
