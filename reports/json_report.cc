#include "reports/json_report.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "reports/json_fields.h"
#include "reports/report_time.h"
#include "reports/utf8.h"

namespace hn::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using namespace json_fields;

// One writer for both json (the pipe, CTRF) and ordered_json (the document, so
// a person reading it sees code before evidence): one call site per field.
template <typename Json>
Json finding_json(const Finding& f) {
  Json evidence = Json::object();
  for (const auto& [k, v] : f.evidence) evidence[to_valid_utf8(k)] = to_valid_utf8(v);
  Json metrics = Json::object();
  for (const auto& [name, m] : f.metrics) {
    Json metric = Json::object();
    // JSON has no NaN or infinity; null is the one honest spelling.
    metric["value"] = std::isfinite(m.value) ? Json(m.value) : Json(nullptr);
    metric["unit"] = to_valid_utf8(m.unit);
    metrics[to_valid_utf8(name)] = std::move(metric);
  }
  Json j = Json::object();
  j["code"] = to_valid_utf8(f.code);
  j["layer"] = std::string(to_string(f.layer));
  j["layer_title"] = std::string(layer_title(f.layer));
  j["status"] = std::string(to_string(f.status));
  j["entity"] = to_valid_utf8(f.entity);
  if (!f.host.empty()) j["host"] = to_valid_utf8(f.host);
  j["message"] = to_valid_utf8(f.message);
  j["remediation"] = to_valid_utf8(f.remediation);
  j["evidence"] = std::move(evidence);
  j["metrics"] = std::move(metrics);
  j["duration_ms"] = f.duration_ms;
  return j;
}

template <typename Json>
Finding read_finding(const Json& j, const std::string& where) {
  if (!j.is_object()) reject(where, std::string("must be an object, not ") + j.type_name());
  Finding f;
  f.code = get_string(j, "code", where);
  f.layer = get_enum(j, "layer", where, [](const std::string& s) { return layer_from_string(s); });
  f.status =
      get_enum(j, "status", where, [](const std::string& s) { return status_from_string(s); });
  f.entity = get_string(j, "entity", where);
  if (j.contains("host")) f.host = get_string(j, "host", where);
  f.message = get_string(j, "message", where);
  f.remediation = get_string(j, "remediation", where);
  const Json& evidence = member(j, "evidence", where);
  if (!evidence.is_object()) reject(field_path(where, "evidence"), "must be an object");
  for (const auto& [k, v] : evidence.items()) {
    if (!v.is_string()) reject(field_path(where, "evidence." + k), "must be a string");
    f.evidence[k] = v.template get<std::string>();
  }
  const Json& metrics = member(j, "metrics", where);
  if (!metrics.is_object()) reject(field_path(where, "metrics"), "must be an object");
  for (const auto& [name, m] : metrics.items()) {
    std::string at = field_path(where, "metrics." + name);
    Metric metric;
    const Json& value = member(m, "value", at);
    if (value.is_null())
      metric.value = std::numeric_limits<double>::quiet_NaN();
    else if (value.is_number())
      metric.value = value.template get<double>();
    else
      reject(at + ".value", "must be a number or null");
    metric.unit = get_string(m, "unit", at);
    f.metrics[name] = std::move(metric);
  }
  f.duration_ms = get_number(j, "duration_ms", where);
  return f;
}

template <typename Json>
Report read_report(const Json& doc) {
  if (!doc.is_object()) reject("", std::string("must be an object, not ") + doc.type_name());
  std::string schema = get_string(doc, "schema", "");
  if (schema != kReportSchemaName)
    reject("schema", "is '" + schema + "', expected '" + kReportSchemaName + "'");
  const Json& version = member(doc, "schema_version", "");
  if (!version.is_number_integer()) reject("schema_version", "must be an integer");
  auto v = version.template get<std::int64_t>();
  if (v < 1 || v > kReportSchemaVersion)
    reject("schema_version", "is " + std::to_string(v) + "; this hnprecheck reads versions 1 to " +
                                 std::to_string(kReportSchemaVersion) +
                                 " (written by a newer hnprecheck?)");

  Report r;
  r.tool_version = get_string(member(doc, "tool", ""), "version", "tool");
  r.command = get_string(doc, "command", "");
  r.hostname = get_string(doc, "host", "");
  r.profile = get_string(doc, "profile", "");
  r.started_unix_ms = get_time(doc, "started", "");
  r.finished_unix_ms = get_time(doc, "finished", "");

  const Json& findings = member(doc, "findings", "");
  if (!findings.is_array()) reject("findings", "must be an array");
  for (std::size_t i = 0; i < findings.size(); ++i)
    r.findings.push_back(read_finding(findings[i], "findings[" + std::to_string(i) + "]"));

  const Json& extra = member(doc, "extra", "");
  if (!extra.is_object()) reject("extra", "must be an object");
  for (const auto& [name, value] : extra.items()) r.extra_json[name] = value.dump();
  return r;
}

}  // namespace

json finding_to_json(const Finding& finding) {
  return finding_json<json>(finding);
}

Finding finding_from_json(const json& j) {
  return read_finding(j, "finding");
}

std::string render_json(const Report& report) {
  Summary sum = summarize(report.findings);
  ordered_json findings = ordered_json::array();
  for (const auto& f : report.findings) findings.push_back(finding_json<ordered_json>(f));
  ordered_json extra = ordered_json::object();
  for (const auto& [name, text] : report.extra_json) {
    try {
      extra[to_valid_utf8(name)] = ordered_json::parse(text);
    } catch (const ordered_json::parse_error& e) {
      throw std::invalid_argument("report extra '" + name + "' is not valid JSON: " + e.what());
    }
  }

  ordered_json doc = ordered_json::object();
  doc["schema"] = kReportSchemaName;
  doc["schema_version"] = kReportSchemaVersion;
  doc["tool"] = {{"name", "hnprecheck"}, {"version", to_valid_utf8(report.tool_version)}};
  doc["command"] = to_valid_utf8(report.command);
  doc["host"] = to_valid_utf8(report.hostname);
  doc["profile"] = to_valid_utf8(report.profile);
  doc["started"] = format_iso8601_ms(report.started_unix_ms);
  doc["finished"] = format_iso8601_ms(report.finished_unix_ms);
  doc["duration_ms"] = report.finished_unix_ms - report.started_unix_ms;
  doc["summary"] = {{"total", sum.total()}, {"pass", sum.pass}, {"warn", sum.warn},
                    {"fail", sum.fail},     {"skip", sum.skip}, {"error", sum.error}};
  doc["findings"] = std::move(findings);
  doc["extra"] = std::move(extra);
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

Report report_from_json(const std::string& text, const std::string& source_name) {
  // ordered_json keeps the key order of "extra" tables, so a report read and
  // written again is byte-identical.
  ordered_json doc;
  try {
    doc = ordered_json::parse(text);
  } catch (const ordered_json::parse_error& e) {
    throw std::runtime_error(source_name + ": not valid JSON: " + e.what());
  }
  try {
    return read_report(doc);
  } catch (const FieldError& e) {
    throw std::runtime_error(source_name + ": " + e.what());
  }
}

}  // namespace hn::reports
