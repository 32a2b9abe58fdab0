#include "reports/certificate.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "reports/json_report.h"
#include "reports/report_time.h"
#include "reports/utf8.h"

namespace hn::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json number(double v) {
  return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

// Reading: each accessor names the field it rejects ("hosts[2].ranks").
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void reject(const std::string& path, const std::string& problem) {
  throw FieldError((path.empty() ? std::string("document") : path) + ": " + problem);
}

std::string at(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

const json& member(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) reject(where, std::string("must be an object, not ") + obj.type_name());
  auto it = obj.find(key);
  if (it == obj.end()) reject(at(where, key), "is missing");
  return *it;
}

std::string text(const json& obj, const char* key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_string()) reject(at(where, key), std::string("must be a string, not ") + v.type_name());
  return v.get<std::string>();
}

double num(const json& obj, const char* key, const std::string& where, bool nullable = false) {
  const json& v = member(obj, key, where);
  if (nullable && v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) reject(at(where, key), std::string("must be a number, not ") + v.type_name());
  return v.get<double>();
}

std::int64_t integer(const json& obj, const char* key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_number_integer()) reject(at(where, key), "must be an integer");
  return v.get<std::int64_t>();
}

const json& array(const json& obj, const char* key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_array()) reject(at(where, key), std::string("must be an array, not ") + v.type_name());
  return v;
}

std::int64_t time_field(const json& obj, const char* key, const std::string& where) {
  try {
    return parse_iso8601_ms(text(obj, key, where));
  } catch (const std::invalid_argument& e) {
    reject(at(where, key), e.what());
  }
}

template <typename Parse>
auto enumerated(const json& obj, const char* key, const std::string& where, Parse parse) {
  std::string s = text(obj, key, where);
  try {
    return parse(s);
  } catch (const std::invalid_argument& e) {
    reject(at(where, key), e.what());
  }
}

std::string item(const char* name, std::size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

std::vector<Measurement> read_measurements(const json& metrics) {
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string w = item("metrics", i);
    Measurement m;
    m.name = text(metrics[i], "name", w);
    const json& labels = member(metrics[i], "labels", w);
    if (!labels.is_object()) reject(at(w, "labels"), "must be an object");
    for (const auto& [k, v] : labels.items()) {
      if (!v.is_string()) reject(at(w, "labels." + k), "must be a string");
      m.labels[k] = v.get<std::string>();
    }
    m.value = num(metrics[i], "value", w, true);
    m.unit = text(metrics[i], "unit", w);
    m.better = enumerated(metrics[i], "better", w,
                          [](const std::string& s) { return better_from_string(s); });
    m.phase = text(metrics[i], "phase", w);
    out.push_back(std::move(m));
  }
  return out;
}

ordered_json write_measurements(const std::vector<Measurement>& ms) {
  ordered_json metrics = ordered_json::array();
  for (const auto& m : ms) {
    ordered_json labels = ordered_json::object();
    for (const auto& [k, v] : m.labels) labels[to_valid_utf8(k)] = to_valid_utf8(v);
    metrics.push_back({{"name", to_valid_utf8(m.name)},
                       {"labels", std::move(labels)},
                       {"value", number(m.value)},
                       {"unit", to_valid_utf8(m.unit)},
                       {"better", std::string(to_string(m.better))},
                       {"phase", to_valid_utf8(m.phase)}});
  }
  return metrics;
}

Certificate read(const json& doc) {
  if (!doc.is_object()) reject("", std::string("must be an object, not ") + doc.type_name());
  std::string schema = text(doc, "schema", "");
  if (schema != kCertificateSchemaName)
    reject("schema", "is '" + schema + "', expected '" + kCertificateSchemaName + "'");
  std::int64_t version = integer(doc, "schema_version", "");
  if (version < 1 || version > kCertificateSchemaVersion)
    reject("schema_version",
           "is " + std::to_string(version) + "; this hnprecheck reads versions 1 to " +
               std::to_string(kCertificateSchemaVersion) + " (written by a newer hnprecheck?)");
  Certificate c;
  c.tool_version = text(member(doc, "tool", ""), "version", "tool");
  c.cluster = text(doc, "cluster", "");
  c.profile_source = text(member(doc, "profile", ""), "source", "profile");
  c.profile_sha256 = text(member(doc, "profile", ""), "sha256", "profile");
  c.launcher = text(doc, "launcher", "");
  c.world = static_cast<int>(integer(doc, "world", ""));
  const json& hosts = array(doc, "hosts", "");
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const std::string w = item("hosts", i);
    CertificateHost h;
    h.name = text(hosts[i], "name", w);
    h.node = text(hosts[i], "node", w);
    const json& ranks = array(hosts[i], "ranks", w);
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      if (!ranks[k].is_number_integer()) reject(at(w, item("ranks", k)), "must be an integer");
      h.ranks.push_back(ranks[k].get<int>());
    }
    if (hosts[i].contains("machine")) {
      const std::string mw = at(w, "machine");
      const json& m = hosts[i]["machine"];
      if (!m.is_object()) reject(mw, "must be an object");
      CertificateMachine cm;
      cm.cpu = text(m, "cpu", mw);
      cm.kernel = text(m, "kernel", mw);
      const json& nics = array(m, "nics", mw);
      for (std::size_t k = 0; k < nics.size(); ++k) {
        const std::string nw = at(mw, item("nics", k));
        MachineNic n;
        n.name = text(nics[k], "name", nw);
        n.driver = text(nics[k], "driver", nw);
        const json& sp = member(nics[k], "speed_mbps", nw);
        if (!sp.is_null()) {
          if (!sp.is_number_integer()) reject(at(nw, "speed_mbps"), "must be an integer or null");
          n.speed_mbps = sp.get<long long>();
        }
        cm.nics.push_back(std::move(n));
      }
      h.machine = std::move(cm);
    }
    c.hosts.push_back(std::move(h));
  }
  c.started_unix_ms = time_field(doc, "started", "");
  c.finished_unix_ms = time_field(doc, "finished", "");
  c.verdict =
      enumerated(doc, "verdict", "", [](const std::string& s) { return verdict_from_string(s); });
  const json& phases = array(doc, "phases", "");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const std::string w = item("phases", i);
    CertificatePhase p;
    p.name = text(phases[i], "name", w);
    const json& layers = array(phases[i], "layers", w);
    for (std::size_t k = 0; k < layers.size(); ++k) {
      if (!layers[k].is_string()) reject(at(w, item("layers", k)), "must be a string");
      p.layers.push_back(layers[k].get<std::string>());
    }
    p.status = enumerated(phases[i], "status", w,
                          [](const std::string& s) { return status_from_string(s); });
    p.duration_ms = num(phases[i], "duration_ms", w);
    if (phases[i].contains("skipped_because"))
      p.skipped_because = text(phases[i], "skipped_because", w);
    if (phases[i].contains("skip_kind")) p.skip_kind = text(phases[i], "skip_kind", w);
    c.phases.push_back(std::move(p));
  }
  if (doc.contains("not_covered")) {
    const json& nc = array(doc, "not_covered", "");
    for (std::size_t i = 0; i < nc.size(); ++i) {
      const std::string w = item("not_covered", i);
      c.not_covered.push_back({text(nc[i], "what", w), text(nc[i], "reason", w)});
    }
  }
  c.metrics = read_measurements(array(doc, "metrics", ""));
  const json& findings = array(doc, "findings", "");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    try {
      c.findings.push_back(finding_from_json(findings[i]));
    } catch (const std::runtime_error& e) {
      reject(item("findings", i), e.what());
    }
  }
  return c;
}

}  // namespace

int outcome_weight(Status s) {
  switch (s) {
    case Status::kFail:
      return 4;
    case Status::kError:
      return 3;
    case Status::kWarn:
      return 2;
    case Status::kPass:
      return 1;
    case Status::kSkip:
      return 0;
  }
  return 0;
}

std::string_view to_string(CertVerdict v) {
  switch (v) {
    case CertVerdict::kCertified:
      return "certified";
    case CertVerdict::kPartial:
      return "partial";
    case CertVerdict::kNotCertified:
      return "not_certified";
    case CertVerdict::kIncomplete:
      return "incomplete";
  }
  return "incomplete";
}

CertVerdict verdict_from_string(std::string_view s) {
  for (CertVerdict v : {CertVerdict::kCertified, CertVerdict::kPartial, CertVerdict::kNotCertified,
                        CertVerdict::kIncomplete})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("'" + std::string(s) +
                              "' is not a verdict (expected certified, partial, not_certified or "
                              "incomplete)");
}

CertVerdict verdict_for(const std::vector<Finding>& findings, bool strict) {
  bool fail = false, error = false, partial = false, warn = false;
  for (const auto& f : findings) {
    fail = fail || f.status == Status::kFail;
    error = error || f.status == Status::kError;
    if (f.status == Status::kWarn) (f.code == "CERT-COVERAGE" ? partial : warn) = true;
  }
  if (fail) return CertVerdict::kNotCertified;
  if (error) return CertVerdict::kIncomplete;
  if (strict && warn) return CertVerdict::kNotCertified;
  return partial ? CertVerdict::kPartial : CertVerdict::kCertified;
}

int exit_code_of(CertVerdict v, bool strict) {
  switch (v) {
    case CertVerdict::kCertified:
      return 0;
    case CertVerdict::kPartial:
      return strict ? 1 : 0;
    case CertVerdict::kNotCertified:
      return 1;
    case CertVerdict::kIncomplete:
      return 3;
  }
  return 3;
}

std::string render_certificate(const Certificate& c) {
  ordered_json doc = ordered_json::object();
  doc["schema"] = kCertificateSchemaName;
  doc["schema_version"] = kCertificateSchemaVersion;
  doc["tool"] = {{"name", "hnprecheck"}, {"version", to_valid_utf8(c.tool_version)}};
  doc["cluster"] = to_valid_utf8(c.cluster);
  doc["profile"] = {{"source", to_valid_utf8(c.profile_source)},
                    {"sha256", to_valid_utf8(c.profile_sha256)}};
  doc["launcher"] = to_valid_utf8(c.launcher);
  doc["world"] = c.world;
  ordered_json hosts = ordered_json::array();
  for (const auto& h : c.hosts)
  {
    ordered_json j = {
        {"name", to_valid_utf8(h.name)}, {"node", to_valid_utf8(h.node)}, {"ranks", h.ranks}};
    if (h.machine) {
      ordered_json nics = ordered_json::array();
      for (const auto& n : h.machine->nics)
        nics.push_back({{"name", to_valid_utf8(n.name)},
                        {"driver", to_valid_utf8(n.driver)},
                        {"speed_mbps", n.speed_mbps ? ordered_json(*n.speed_mbps)
                                                    : ordered_json(nullptr)}});
      j["machine"] = {{"cpu", to_valid_utf8(h.machine->cpu)},
                      {"kernel", to_valid_utf8(h.machine->kernel)},
                      {"nics", std::move(nics)}};
    }
    hosts.push_back(std::move(j));
  }
  doc["hosts"] = std::move(hosts);
  doc["started"] = format_iso8601_ms(c.started_unix_ms);
  doc["finished"] = format_iso8601_ms(c.finished_unix_ms);
  doc["duration_ms"] = c.finished_unix_ms - c.started_unix_ms;
  doc["verdict"] = std::string(to_string(c.verdict));
  ordered_json phases = ordered_json::array();
  for (const auto& p : c.phases) {
    ordered_json j = {{"name", to_valid_utf8(p.name)},
                      {"layers", p.layers},
                      {"status", std::string(to_string(p.status))},
                      {"duration_ms", number(p.duration_ms)}};
    if (!p.skipped_because.empty()) j["skipped_because"] = to_valid_utf8(p.skipped_because);
    if (!p.skip_kind.empty()) j["skip_kind"] = p.skip_kind;
    phases.push_back(std::move(j));
  }
  doc["phases"] = std::move(phases);
  ordered_json nc = ordered_json::array();
  for (const auto& n : c.not_covered)
    nc.push_back({{"what", to_valid_utf8(n.what)}, {"reason", to_valid_utf8(n.reason)}});
  doc["not_covered"] = std::move(nc);
  doc["metrics"] = write_measurements(c.metrics);
  ordered_json findings = ordered_json::array();
  for (const auto& f : c.findings) findings.push_back(ordered_json(finding_to_json(f)));
  doc["findings"] = std::move(findings);
  Summary s = summarize(c.findings);
  doc["summary"] = {{"total", s.total()}, {"pass", s.pass}, {"warn", s.warn},
                    {"fail", s.fail},     {"skip", s.skip}, {"error", s.error}};
  return doc.dump(2) + "\n";
}

Certificate certificate_from_json(const json& doc, const std::string& source_name) {
  try {
    return read(doc);
  } catch (const FieldError& e) {
    throw std::runtime_error(source_name + ": " + e.what());
  }
}

std::string measurements_to_json(const std::vector<Measurement>& metrics) {
  return write_measurements(metrics).dump();
}

std::vector<Measurement> measurements_from_json(const json& doc, const std::string& source_name) {
  try {
    if (!doc.is_array()) reject("", "must be an array of figures");
    return read_measurements(doc);
  } catch (const FieldError& e) {
    throw std::runtime_error(source_name + ": " + e.what());
  }
}

}  // namespace hn::reports
