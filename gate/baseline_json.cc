#include "gate/baseline_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "compat/json_input.h"
#include "formats/snapshot.h"
#include "reports/json_fields.h"
#include "reports/uuid.h"

namespace hn::gate {

namespace {

using nlohmann::ordered_json;
using namespace reports::json_fields;

ordered_json number_or_null(double v) {
  return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

std::string direction(const BaselineMetric& m) {
  return m.stated ? std::string(reports::to_string(m.measurement.better)) : "unknown";
}

ordered_json metric_json(const BaselineMetric& m) {
  ordered_json j = ordered_json::object();
  j["name"] = m.measurement.name;
  ordered_json labels = ordered_json::object();
  for (const auto& [k, v] : m.measurement.labels) labels[k] = v;
  j["labels"] = std::move(labels);
  j["unit"] = m.measurement.unit;
  j["better"] = direction(m);
  j["phase"] = m.measurement.phase;
  j["layer"] = std::string(reports::to_string(m.layer));
  j["values"] = m.values;
  j["runs"] = m.runs;
  j["null_runs"] = m.null_runs;
  auto s = m.summary();
  j["n"] = s ? s->n : 0;
  j["centre"] = s ? number_or_null(s->centre) : ordered_json(nullptr);
  j["spread"] = s ? number_or_null(s->spread) : ordered_json(nullptr);
  j["min"] = s ? number_or_null(s->min) : ordered_json(nullptr);
  j["max"] = s ? number_or_null(s->max) : ordered_json(nullptr);
  return j;
}

int run_index(const ordered_json& v, const std::string& at, std::size_t runs) {
  if (!v.is_number_integer()) reject(at, "must be a run index (an integer)");
  auto i = v.get<std::int64_t>();
  if (i < 0 || static_cast<std::size_t>(i) >= runs)
    reject(at, "run index " + std::to_string(i) + " is not one of the " + std::to_string(runs) +
                   " runs");
  return static_cast<int>(i);
}

BaselineMetric read_metric(const ordered_json& j, const std::string& at, std::size_t runs) {
  BaselineMetric m;
  m.measurement.name = get_string(j, "name", at);
  m.measurement.labels = get_string_map(j, "labels", at);
  m.measurement.unit = get_string(j, "unit", at);
  const std::string better = get_string(j, "better", at);
  m.stated = better != "unknown";
  if (m.stated) {
    m.measurement.better = get_enum(
        j, "better", at, [](const std::string& s) { return reports::better_from_string(s); });
  }
  m.measurement.phase = get_string(j, "phase", at);
  m.layer =
      get_enum(j, "layer", at, [](const std::string& s) { return reports::layer_from_string(s); });
  const auto& values = get_array(j, "values", at);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string vat = at + ".values[" + std::to_string(i) + "]";
    if (!values[i].is_number()) reject(vat, "must be a number");
    double v = values[i].get<double>();
    if (!std::isfinite(v)) reject(vat, "must be finite");
    m.values.push_back(v);
  }
  const auto& rs = get_array(j, "runs", at);
  for (std::size_t i = 0; i < rs.size(); ++i)
    m.runs.push_back(run_index(rs[i], at + ".runs[" + std::to_string(i) + "]", runs));
  if (m.runs.size() != m.values.size())
    reject(field_path(at, "runs"), "has " + std::to_string(m.runs.size()) + " entries for " +
                                       std::to_string(m.values.size()) + " values");
  const auto& nulls = get_array(j, "null_runs", at);
  for (std::size_t i = 0; i < nulls.size(); ++i)
    m.null_runs.push_back(run_index(nulls[i], at + ".null_runs[" + std::to_string(i) + "]", runs));
  return m;
}

BaselineCheck read_check(const ordered_json& j, const std::string& at, std::size_t runs) {
  BaselineCheck c;
  c.host = get_string(j, "host", at);
  c.code = get_string(j, "code", at);
  c.entity = get_string(j, "entity", at);
  c.layer =
      get_enum(j, "layer", at, [](const std::string& s) { return reports::layer_from_string(s); });
  const auto& st = get_array(j, "statuses", at);
  for (std::size_t i = 0; i < st.size(); ++i) {
    const std::string sat = at + ".statuses[" + std::to_string(i) + "]";
    int run = run_index(member(st[i], "run", sat), sat + ".run", runs);
    auto status = get_enum(st[i], "status", sat,
                           [](const std::string& s) { return reports::status_from_string(s); });
    c.statuses.emplace_back(run, status);
  }
  return c;
}

Baseline read_baseline(const ordered_json& doc, const std::string& source) {
  if (!doc.is_object()) reject("", std::string("must be an object, not ") + doc.type_name());
  const std::string schema = get_string(doc, "schema", "");
  if (schema != kBaselineSchemaName)
    reject("schema", "is '" + schema + "', expected '" + kBaselineSchemaName + "'" +
                         (schema == "hnprecheck.report" || schema == "hnprecheck.certificate"
                              ? " (this is a run: give it to `gate baseline` to build a baseline)"
                              : ""));
  const auto v = get_int(doc, "schema_version", "");
  if (v < 1 || v > kBaselineSchemaVersion)
    reject("schema_version", "is " + std::to_string(v) + "; this hnprecheck reads versions 1 to " +
                                 std::to_string(kBaselineSchemaVersion) +
                                 " (written by a newer hnprecheck?)");
  Baseline b;
  b.id = get_string(doc, "id", "");
  if (!reports::is_uuid(b.id))
    reject("id", "'" + b.id + "' is not a UUID (CTRF names a baseline by one)");
  b.created = get_string(doc, "created", "");
  b.tool_version = get_string(member(doc, "tool", ""), "version", "tool");
  const auto& runs = get_array(doc, "runs", "");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string at = "runs[" + std::to_string(i) + "]";
    RunInfo r;
    r.source = get_string(runs[i], "source", at);
    r.kind =
        get_enum(runs[i], "kind", at, [](const std::string& s) { return run_kind_from_string(s); });
    r.sha256 = get_string(runs[i], "sha256", at);
    r.host = get_string(runs[i], "host", at);
    r.started = get_string(runs[i], "started", at);
    r.tool_version = get_string(runs[i], "tool_version", at);
    r.what = get_string(runs[i], "what", at);
    // Absent in baselines built before machines were recorded.
    if (runs[i].contains("machines")) {
      const auto& ms = get_array(runs[i], "machines", at);
      for (std::size_t k = 0; k < ms.size(); ++k) {
        const std::string mat = at + ".machines[" + std::to_string(k) + "]";
        Machine m;
        m.host = get_string(ms[k], "host", mat);
        m.cpu = get_string(ms[k], "cpu", mat);
        m.kernel = get_string(ms[k], "kernel", mat);
        const auto& nics = get_array(ms[k], "nics", mat);
        for (std::size_t n = 0; n < nics.size(); ++n) {
          if (!nics[n].is_string()) reject(mat + ".nics[" + std::to_string(n) + "]", "must be a string");
          m.nics.push_back(nics[n].get<std::string>());
        }
        r.machines.push_back(std::move(m));
      }
    }
    b.runs.push_back(std::move(r));
  }
  if (b.runs.empty()) reject("runs", "is empty: a baseline is built from at least one run");
  const auto empty = [&](const char* key) { return get_array(doc, key, "").empty(); };
  if (empty("metrics") && empty("checks") && empty("snapshots"))
    reject("", "holds no figure, check or snapshot: it cannot judge anything (build it from "
               "runs that measured something)");
  const auto& metrics = get_array(doc, "metrics", "");
  for (std::size_t i = 0; i < metrics.size(); ++i)
    b.metrics.push_back(
        read_metric(metrics[i], "metrics[" + std::to_string(i) + "]", b.runs.size()));
  const auto& checks = get_array(doc, "checks", "");
  for (std::size_t i = 0; i < checks.size(); ++i)
    b.checks.push_back(read_check(checks[i], "checks[" + std::to_string(i) + "]", b.runs.size()));
  const auto& snaps = get_array(doc, "snapshots", "");
  for (std::size_t i = 0; i < snaps.size(); ++i) {
    const std::string at = "snapshots[" + std::to_string(i) + "]";
    BaselineState s;
    s.state.host = get_string(snaps[i], "host", at);
    s.run = run_index(member(snaps[i], "run", at), at + ".run", b.runs.size());
    s.state.yaml = get_string(snaps[i], "yaml", at);
    // A hand-edited snapshot is held to the snapshot reader's rules.
    const auto parsed = formats::parse_snapshot(s.state.yaml, source + ": " + at + ".yaml");
    if (parsed.hostname != s.state.host)
      reject(at + ".host",
             "is '" + s.state.host + "' but its snapshot is of '" + parsed.hostname + "'");
    b.states.push_back(std::move(s));
  }
  return b;
}

}  // namespace

std::string baseline_to_json(const Baseline& b) {
  ordered_json doc = ordered_json::object();
  doc["schema"] = kBaselineSchemaName;
  doc["schema_version"] = kBaselineSchemaVersion;
  doc["id"] = b.id;
  doc["created"] = b.created;
  doc["tool"] = {{"name", "hnprecheck"}, {"version", b.tool_version}};
  doc["statistics"] = {{"centre", "median"}, {"spread", "mad"}, {"mad_scale", kMadScale}};
  ordered_json runs = ordered_json::array();
  for (const auto& r : b.runs) {
    ordered_json machines = ordered_json::array();
    for (const auto& m : r.machines)
      machines.push_back(
          {{"host", m.host}, {"cpu", m.cpu}, {"kernel", m.kernel}, {"nics", m.nics}});
    runs.push_back({{"source", r.source},
                    {"kind", std::string(to_string(r.kind))},
                    {"sha256", r.sha256},
                    {"host", r.host},
                    {"started", r.started},
                    {"tool_version", r.tool_version},
                    {"what", r.what},
                    {"machines", std::move(machines)}});
  }
  doc["runs"] = std::move(runs);
  ordered_json metrics = ordered_json::array();
  for (const auto& m : b.metrics) metrics.push_back(metric_json(m));
  doc["metrics"] = std::move(metrics);
  ordered_json checks = ordered_json::array();
  for (const auto& c : b.checks) {
    ordered_json st = ordered_json::array();
    for (const auto& [run, status] : c.statuses)
      st.push_back({{"run", run}, {"status", std::string(reports::to_string(status))}});
    checks.push_back({{"host", c.host},
                      {"code", c.code},
                      {"entity", c.entity},
                      {"layer", std::string(reports::to_string(c.layer))},
                      {"statuses", std::move(st)}});
  }
  doc["checks"] = std::move(checks);
  ordered_json snaps = ordered_json::array();
  for (const auto& s : b.states)
    snaps.push_back({{"host", s.state.host}, {"run", s.run}, {"yaml", s.state.yaml}});
  doc["snapshots"] = std::move(snaps);
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

Baseline baseline_from_json(const std::string& text, const std::string& source_name) {
  const ordered_json doc =
      compat::parse_ordered_json_text(text, source_name, compat::kMaxInputBytes, "not valid JSON");
  try {
    return read_baseline(doc, source_name);
  } catch (const FieldError& e) {
    throw compat::InputError(source_name, 0, 0, "", e.what());
  }
}

}  // namespace hn::gate
