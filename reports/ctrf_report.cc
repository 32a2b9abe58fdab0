#include "reports/ctrf_report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "reports/json_report.h"
#include "reports/report_time.h"
#include "reports/utf8.h"

namespace hn::reports {

namespace {

using nlohmann::ordered_json;

std::string random_uuid() {
  std::random_device rd;
  std::uniform_int_distribution<unsigned> byte(0, 255);
  unsigned char b[16];
  for (auto& x : b) x = static_cast<unsigned char>(byte(rd));
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  char out[37];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

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
  // The run's context, which CTRF has no field for, in the spec's free-form slot.
  doc["extra"] = {{"command", to_valid_utf8(report.command)},
                  {"host", to_valid_utf8(report.hostname)},
                  {"profile", to_valid_utf8(report.profile)}};
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace hn::reports
