#include "reports/prometheus_report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "reports/utf8.h"

namespace hn::reports {

namespace {

// Label values: backslash, double quote and line feed are escaped.
// Invalid UTF-8 (an odd byte in a mount path) becomes U+FFFD: node_exporter
// rejects a whole file for one bad label.
std::string label(std::string_view raw) {
  const std::string v = to_valid_utf8(raw);
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Seconds from milliseconds, exactly as many digits as they carry.
std::string seconds(std::int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ms) / 1000.0);
  return buf;
}

void header(std::ostringstream& os, const char* name, const char* help) {
  os << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " gauge\n";
}

// Worse statuses win a label-set collision: fail > error > warn > skip > pass.
int severity(Status s) {
  switch (s) {
    case Status::kFail:
      return 4;
    case Status::kError:
      return 3;
    case Status::kWarn:
      return 2;
    case Status::kSkip:
      return 1;
    case Status::kPass:
      return 0;
  }
  return 0;
}

}  // namespace

int prometheus_status_value(Status s) {
  switch (s) {
    case Status::kPass:
      return 0;
    case Status::kWarn:
      return 1;
    case Status::kFail:
      return 2;
    case Status::kSkip:
      return 3;
    case Status::kError:
      return 4;
  }
  return 4;
}

std::string render_prometheus(const Report& report) {
  std::ostringstream os;
  header(os, "hnprecheck_run_info", "The hnprecheck run these series come from (always 1).");
  os << "hnprecheck_run_info{command=\"" << label(report.command) << "\",host=\""
     << label(report.hostname) << "\",profile=\"" << label(report.profile) << "\",version=\""
     << label(report.tool_version) << "\"} 1\n";
  header(os, "hnprecheck_last_run_timestamp_seconds", "When the run finished, in unix seconds.");
  // Every series carries the command: `node` and `translate --check` may
  // write files into one textfile directory, and node_exporter refuses the
  // same series from two files.
  const std::string cmd = "command=\"" + label(report.command) + "\"";
  os << "hnprecheck_last_run_timestamp_seconds{" << cmd << "} " << seconds(report.finished_unix_ms)
     << "\n";
  header(os, "hnprecheck_run_duration_seconds", "How long the run took.");
  os << "hnprecheck_run_duration_seconds{" << cmd << "} "
     << seconds(report.finished_unix_ms - report.started_unix_ms) << "\n";

  const Summary s = summarize(report.findings);
  header(os, "hnprecheck_findings", "Findings of the run by status.");
  const std::pair<const char*, int> counts[] = {
      {"pass", s.pass}, {"warn", s.warn}, {"fail", s.fail}, {"skip", s.skip}, {"error", s.error}};
  for (const auto& [name, n] : counts)
    os << "hnprecheck_findings{" << cmd << ",status=\"" << name << "\"} " << n << "\n";

  std::map<std::tuple<std::string, std::string, std::string>, Status> checks;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, double> metrics;
  for (const auto& f : sorted_for_report(report.findings)) {
    auto key = std::make_tuple(f.code, std::string(to_string(f.layer)), f.entity);
    auto [it, fresh] = checks.emplace(key, f.status);
    if (!fresh && severity(f.status) > severity(it->second)) it->second = f.status;
    for (const auto& [name, m] : f.metrics)
      metrics.emplace(std::make_tuple(f.code, f.entity, name, m.unit), m.value);
  }
  header(os, "hnprecheck_check_status",
         "Status of each check: 0 pass, 1 warn, 2 fail, 3 skip, 4 error.");
  for (const auto& [key, st] : checks)
    os << "hnprecheck_check_status{" << cmd << ",code=\"" << label(std::get<0>(key))
       << "\",layer=\"" << label(std::get<1>(key)) << "\",entity=\"" << label(std::get<2>(key))
       << "\"} " << prometheus_status_value(st) << "\n";
  if (!metrics.empty()) {
    header(os, "hnprecheck_finding_metric", "A measured value of a finding, in its unit.");
    for (const auto& [key, v] : metrics)
      os << "hnprecheck_finding_metric{" << cmd << ",code=\"" << label(std::get<0>(key))
         << "\",entity=\"" << label(std::get<1>(key)) << "\",metric=\"" << label(std::get<2>(key))
         << "\",unit=\"" << label(std::get<3>(key)) << "\"} " << number(v) << "\n";
  }
  return os.str();
}

}  // namespace hn::reports
