#include "reports/ctrf_report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "reports/json_report.h"
#include "reports/report_time.h"
#include "reports/utf8.h"
#include "reports/uuid.h"

namespace hn::reports {

namespace {

using nlohmann::ordered_json;

ordered_json ctrf_test(const Finding& f) {
  // Evidence and metrics come from the JSON report's writer, so the two
  // formats spell them identically (null for a non-finite metric included).
  nlohmann::json ours = finding_to_json(f);
  std::string suite = std::string(to_string(f.layer)) + " " + std::string(layer_title(f.layer));
  ordered_json t = ordered_json::object();
  t["name"] = ours["entity"].get<std::string>().empty()
                  ? ours["code"].get<std::string>()
                  : ours["code"].get<std::string>() + " " + ours["entity"].get<std::string>();
  t["status"] = std::string(ctrf_status(f.status));
  t["duration"] = std::isfinite(f.duration_ms) ? std::llround(f.duration_ms) : 0;
  t["message"] = ours["message"];
  t["rawStatus"] = std::string(to_string(f.status));
  // CTRF 1.0.0 types suite as the hierarchy, an array; a bare string fails
  // the spec's schema.
  t["suite"] = ordered_json::array({suite});
  t["tags"] = {ours["code"], std::string(to_string(f.layer))};
  t["extra"] = {{"code", ours["code"]},         {"layer", ours["layer"]},
                {"entity", ours["entity"]},     {"remediation", ours["remediation"]},
                {"evidence", ours["evidence"]}, {"metrics", ours["metrics"]}};
  return t;
}

}  // namespace

std::string_view ctrf_status(Status status) {
  switch (status) {
    case Status::kPass:
      return "passed";
    case Status::kFail:
    case Status::kError:
      return "failed";
    case Status::kSkip:
      return "skipped";
    case Status::kWarn:
      return "other";
  }
  return "other";
}

std::string render_ctrf(const Report& report) {
  return render_ctrf(report, nullptr);
}

std::string render_ctrf(const Report& report, const CtrfBaseline* baseline) {
  Summary s = summarize(report.findings);
  ordered_json tests = ordered_json::array();
  for (const auto& f : sorted_for_report(report.findings)) tests.push_back(ctrf_test(f));

  ordered_json results = ordered_json::object();
  results["tool"] = {{"name", "hnprecheck"}, {"version", to_valid_utf8(report.tool_version)}};
  results["summary"] = {{"tests", s.total()},
                        {"passed", s.pass},
                        {"failed", s.fail + s.error},
                        {"skipped", s.skip},
                        {"pending", 0},
                        {"other", s.warn},
                        {"start", report.started_unix_ms},
                        {"stop", report.finished_unix_ms}};
  results["tests"] = std::move(tests);

  ordered_json doc = ordered_json::object();
  doc["reportFormat"] = "CTRF";
  doc["specVersion"] = "1.0.0";
  doc["reportId"] = random_uuid();
  doc["timestamp"] = format_iso8601_ms(report.finished_unix_ms);
  doc["generatedBy"] = "hnprecheck " + to_valid_utf8(report.tool_version);
  doc["results"] = std::move(results);
  if (baseline) {
    ordered_json b = ordered_json::object();
    b["reportId"] = to_valid_utf8(baseline->report_id);
    if (!baseline->timestamp.empty()) b["timestamp"] = to_valid_utf8(baseline->timestamp);
    if (!baseline->source.empty()) b["source"] = to_valid_utf8(baseline->source);
    if (!baseline->extra.empty()) {
      ordered_json extra = ordered_json::object();
      for (const auto& [k, v] : baseline->extra) extra[to_valid_utf8(k)] = to_valid_utf8(v);
      b["extra"] = std::move(extra);
    }
    doc["baseline"] = std::move(b);
  }
  // The run's context, which CTRF has no field for, in the spec's free-form slot.
  doc["extra"] = {{"command", to_valid_utf8(report.command)},
                  {"host", to_valid_utf8(report.hostname)},
                  {"profile", to_valid_utf8(report.profile)}};
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace hn::reports
