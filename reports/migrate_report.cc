// The migration report's model, its JSON form and its text and Markdown
// renderings (the HTML page is migrate_html.cc).
#include "reports/migrate_report.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reports/markdown_report.h"
#include "reports/report_time.h"
#include "reports/utf8.h"

namespace hn::reports {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kReady:
      return "ready";
    case Verdict::kNotChecked:
      return "not fully checked";
    case Verdict::kNeedsChanges:
      return "needs changes";
    case Verdict::kBlocked:
      return "blocked";
  }
  return "ready";
}

std::string_view verdict_key(Verdict v) {
  switch (v) {
    case Verdict::kReady:
      return "ready";
    case Verdict::kNotChecked:
      return "not_checked";
    case Verdict::kNeedsChanges:
      return "needs_changes";
    case Verdict::kBlocked:
      return "blocked";
  }
  return "ready";
}

std::string change_place(const MigrationChange& c) {
  return c.where.empty() || c.what.find(c.where) != std::string::npos ? "" : c.where;
}

std::string no_changes_text(const Migration& m) {
  std::string unchecked;
  for (const auto& c : m.concerns)
    if (c.verdict == Verdict::kNotChecked) unchecked += (unchecked.empty() ? "" : ", ") + c.key;
  if (unchecked.empty()) return "none: the job can move as it is";
  return "none found, but not every check could run (" + unchecked +
         ": see their summaries); check those by hand before moving";
}

int migration_exit_code(const Migration& m, bool strict) {
  for (const auto& c : m.concerns)
    if (c.verdict == Verdict::kNeedsChanges || c.verdict == Verdict::kBlocked ||
        (strict && c.verdict == Verdict::kNotChecked))
      return 1;
  return 0;
}

std::string migration_json(const Migration& m) {
  using nlohmann::json;
  auto s = [](const std::string& v) { return to_valid_utf8(v); };
  json concerns = json::array(), verdicts = json::object();
  for (const auto& c : m.concerns) {
    concerns.push_back({{"key", c.key},
                        {"title", c.title},
                        {"verdict", verdict_key(c.verdict)},
                        {"summary", s(c.summary)},
                        {"findings", c.findings}});
    verdicts[c.key] = verdict_key(c.verdict);
  }
  json changes = json::array();
  int order = 0;
  for (const auto& c : m.changes)
    changes.push_back({{"order", ++order},
                       {"severity", verdict_key(c.severity)},
                       {"concern", c.concern},
                       {"code", c.code},
                       {"entity", s(c.entity)},
                       {"what", s(c.what)},
                       {"where", s(c.where)}});
  json inputs = json::array();
  for (const auto& i : m.inputs)
    inputs.push_back({{"name", i.name},
                      {"value", s(i.value)},
                      {"where", s(i.where)},
                      {"origin", i.origin},
                      {"used", i.used}});
  json artifacts = json::array();
  for (const auto& a : m.artifacts)
    artifacts.push_back({{"kind", a.kind}, {"path", s(a.path)}, {"status", s(a.status)}});
  json ops = json::array();
  for (const auto& o : m.operators)
    ops.push_back({{"file", s(o.file)}, {"total", o.total}, {"by_class", o.by_class}});
  return json{{"schema_version", kMigrationSchemaVersion},
              {"job", s(m.job)},
              {"target", s(m.target)},
              {"verdicts", verdicts},
              {"concerns", concerns},
              {"changes", changes},
              {"inputs", inputs},
              {"artifacts", artifacts},
              {"operators", ops}}
      .dump();
}

namespace {

std::string upper(std::string_view v) {
  std::string out(v);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

const char* verdict_colour(Verdict v) {
  switch (v) {
    case Verdict::kReady:
      return "\033[32m";
    case Verdict::kNotChecked:
      return "\033[36m";
    case Verdict::kNeedsChanges:
      return "\033[33m";
    case Verdict::kBlocked:
      return "\033[31m";
  }
  return "";
}

std::string styled(const TextOptions& o, const char* style, const std::string& text) {
  return o.color ? std::string(style) + text + "\033[0m" : text;
}

std::string pad(const std::string& s, std::size_t width) {
  std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

}  // namespace

std::vector<Finding> concern_findings(const Report& report, const MigrationConcern& c,
                                      bool only_problems) {
  auto is_problem = [](Status s) {
    return s == Status::kWarn || s == Status::kFail || s == Status::kError;
  };

  std::vector<Finding> out;
  for (std::size_t i : c.findings) {
    const Finding& f = report.findings.at(i);
    if (!only_problems || is_problem(f.status)) out.push_back(f);
  }
  auto rank = [](Status s) {
    switch (s) {
      case Status::kFail:
        return 0;
      case Status::kError:
        return 1;
      case Status::kWarn:
        return 2;
      case Status::kSkip:
        return 3;
      case Status::kPass:
        return 4;
    }
    return 5;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
    return rank(a.status) < rank(b.status);
  });
  return out;
}

std::string render_migration_text(const Report& report, const Migration& m,
                                  const TextOptions& options) {
  std::ostringstream os;
  auto p = [](const std::string& s) { return printable_text(s); };
  os << text_heading("hnprecheck migrate", options) << "  job " << p(m.job) << "  target "
     << p(m.target) << "\n\n";

  os << text_heading("Verdicts", options) << "\n";
  std::size_t title_w = 0, verdict_w = 0;
  for (const auto& c : m.concerns) {
    title_w = std::max(title_w, display_width(c.title));
    verdict_w = std::max(verdict_w, to_string(c.verdict).size());
  }
  for (const auto& c : m.concerns)
    os << "  " << pad(c.title, title_w) << "  "
       << styled(options, verdict_colour(c.verdict), pad(upper(to_string(c.verdict)), verdict_w))
       << "  " << p(c.summary) << "\n";

  os << "\n" << text_heading("Changes, in order (blocking first)", options) << "\n";
  if (m.changes.empty()) os << "  " << no_changes_text(m) << "\n";
  int n = 0;
  for (const auto& c : m.changes) {
    std::string tag = c.severity == Verdict::kBlocked ? "[blocking] " : "";
    os << "  " << ++n << ". " << styled(options, verdict_colour(c.severity), tag) << c.concern
       << ", " << p(c.entity) << ": " << p(c.what)
       << (change_place(c).empty() ? "" : " (" + p(change_place(c)) + ")") << "\n";
  }

  os << "\n" << text_heading("Inputs", options) << "\n";
  std::size_t name_w = 0, value_w = 0;
  for (const auto& i : m.inputs) {
    name_w = std::max(name_w, display_width(p(i.name)));
    value_w = std::max(value_w, std::min<std::size_t>(40, display_width(p(i.value))));
  }
  for (const auto& i : m.inputs)
    os << "  " << pad(p(i.name), name_w) << "  " << pad(p(i.value), value_w) << "  " << i.origin
       << (i.where.empty() ? "" : " " + p(i.where)) << (i.used ? "" : " (overridden)") << "\n";
  for (const auto& a : m.artifacts)
    os << "  " << pad(a.kind == "env" ? "env file" : "script", name_w) << "  " << p(a.path) << "  "
       << p(a.status) << "\n";

  std::vector<std::vector<Finding>> shown;
  std::vector<Finding> all;
  for (const auto& c : m.concerns) {
    shown.push_back(concern_findings(report, c, options.only_problems));
    all.insert(all.end(), shown.back().begin(), shown.back().end());
  }
  const FindingColumns columns = finding_columns(all);
  for (std::size_t k = 0; k < m.concerns.size(); ++k) {
    const auto& c = m.concerns[k];
    os << "\n"
       << text_heading(c.title, options) << ": "
       << styled(options, verdict_colour(c.verdict), upper(to_string(c.verdict))) << "\n";
    os << render_finding_lines(shown[k], columns, options);
  }
  os << "\n" << render_summary_line(report, options);
  return os.str();
}

std::string render_migration_markdown(const Report& report, const Migration& m) {
  std::ostringstream os;
  os << "# hnprecheck migrate: " << markdown_cell(m.job) << "\n\n";
  os << "Target " << markdown_cell(m.target) << ", finished "
     << format_iso8601_ms(report.finished_unix_ms) << ", hnprecheck " << report.tool_version
     << ".\n\n";
  os << "| concern | verdict | summary |\n|---|---|---|\n";
  for (const auto& c : m.concerns)
    os << "| " << markdown_cell(c.title) << " | **" << to_string(c.verdict) << "** | "
       << markdown_cell(c.summary) << " |\n";
  os << "\n## Changes, in order\n\n";
  if (m.changes.empty()) {
    std::string none = no_changes_text(m);
    none[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(none[0])));
    os << markdown_cell(none) << ".\n";
  }
  int n = 0;
  for (const auto& c : m.changes)
    os << ++n << ". " << (c.severity == Verdict::kBlocked ? "**blocking** " : "")
       << markdown_cell(c.concern) << ", " << markdown_cell(c.entity) << ": "
       << markdown_cell(c.what)
       << (change_place(c).empty() ? "" : " (" + markdown_cell(change_place(c)) + ")") << "\n";
  os << "\n## Inputs\n\n| name | value | from |\n|---|---|---|\n";
  for (const auto& i : m.inputs)
    os << "| " << markdown_cell(i.name) << " | " << markdown_cell(i.value) << " | "
       << markdown_cell(i.origin + (i.where.empty() ? "" : " " + i.where) +
                        (i.used ? "" : " (overridden)"))
       << " |\n";
  for (const auto& c : m.concerns) {
    os << "\n## " << markdown_cell(c.title) << ": " << to_string(c.verdict) << "\n\n"
       << "| status | code | entity | message | next step |\n|---|---|---|---|---|\n";
    for (const auto& f : concern_findings(report, c, false))
      os << "| " << to_string(f.status) << " | `" << markdown_cell(f.code) << "` | "
         << markdown_cell(f.entity) << " | " << markdown_cell(f.message) << " | "
         << markdown_cell(f.remediation) << " |\n";
  }
  return os.str();
}

}  // namespace hn::reports
