#include "gate/run_input.h"

#include <openssl/evp.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "compat/input_error.h"
#include "compat/json_input.h"
#include "compat/yaml_input.h"
#include "formats/snapshot.h"
#include "reports/json_fields.h"
#include "reports/json_report.h"
#include "reports/report_time.h"

namespace hn::gate {

namespace {

using nlohmann::json;
using namespace reports::json_fields;

constexpr const char* kCertificateSchema = "hnprecheck.certificate";
constexpr int kCertificateVersion = 2;  // 2 adds the verdict `partial` (reports/certificate.h)

double value_or_nan(const json& v, const std::string& at) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) reject(at, std::string("must be a number or null, not ") + v.type_name());
  return v.get<double>();
}

// Units of figures that cannot be negative: a negative one is a broken or
// hand-edited file, and would turn the log-scale judgement meaningless.
bool non_negative_unit(const std::string& unit) {
  static const char* const kUnits[] = {"GB/s", "Gbit/s", "MB/s", "Mbit/s", "B/s", "us", "ms",
                                       "s",    "ns",     "bytes", "B",     "MiB",  "GiB", "count"};
  for (const char* u : kUnits)
    if (unit == u) return true;
  return false;
}

void require_sign(double value, const std::string& unit, const std::string& at) {
  if (std::isfinite(value) && value < 0 && non_negative_unit(unit))
    reject(at, "is " + std::to_string(value) + " " + unit + ": a figure in " + unit +
                   " cannot be negative");
}

// A machine identity (preflight/machine_identity.h); nullopt for a
// malformed one is not an option: it is part of the file's format.
Machine machine_from(const json& m, const std::string& at, const std::string& host) {
  if (!m.is_object()) reject(at, std::string("must be an object, not ") + m.type_name());
  Machine out;
  out.host = host.empty() ? get_string(m, "host", at) : host;
  out.cpu = get_string(m, "cpu", at);
  out.kernel = get_string(m, "kernel", at);
  const auto& nics = get_array(m, "nics", at);
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const std::string nat = at + ".nics[" + std::to_string(i) + "]";
    std::string n = get_string(nics[i], "name", nat) + " " + get_string(nics[i], "driver", nat);
    const json& sp = member(nics[i], "speed_mbps", nat);
    if (sp.is_number_integer())
      n += " " + std::to_string(sp.get<long long>()) + " Mb/s";
    else if (!sp.is_null())
      reject(nat + ".speed_mbps", "must be an integer or null");
    out.nics.push_back(std::move(n));
  }
  return out;
}

Check check_of(const reports::Finding& f, const std::string& host) {
  return Check{host, f.code, f.entity, f.layer, f.status, f.message};
}

// When a certificate's phase does not list its layers: the certify phases' layers.
reports::Layer phase_layer(const std::string& phase) {
  static const std::map<std::string, reports::Layer> kLayers = {
      {"hosts", reports::Layer::kL7},    {"cross_host", reports::Layer::kL6},
      {"links", reports::Layer::kL3},    {"bandwidth", reports::Layer::kL3},
      {"collectives", reports::Layer::kL3},
      {"storage", reports::Layer::kL7},  {"model", reports::Layer::kL1},
      {"placement", reports::Layer::kL5}};
  auto it = kLayers.find(phase);
  return it == kLayers.end() ? reports::Layer::kL3 : it->second;
}

Run read_certificate(const json& doc, Run run) {
  const auto v = get_int(doc, "schema_version", "");
  if (v < 1 || v > kCertificateVersion)
    reject("schema_version", "is " + std::to_string(v) + "; this hnprecheck reads versions 1 to " +
                                 std::to_string(kCertificateVersion) +
                                 " (written by a newer hnprecheck?)");
  run.info.kind = RunKind::kCertificate;
  run.info.tool_version = get_string(member(doc, "tool", ""), "version", "tool");
  run.info.started = get_string(doc, "started", "");
  get_time(doc, "started", "");  // validates the format
  const std::string cluster = get_string(doc, "cluster", "");
  const std::string verdict = get_string(doc, "verdict", "");
  const auto world = get_int(doc, "world", "");
  const auto& hosts = get_array(doc, "hosts", "");
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const std::string at = "hosts[" + std::to_string(i) + "]";
    const std::string name = get_string(hosts[i], "name", at);
    if (hosts[i].contains("machine"))
      run.info.machines.push_back(machine_from(hosts[i]["machine"], at + ".machine", name));
  }
  if (hosts.size() == 1) run.info.host = hosts[0]["name"].get<std::string>();
  run.info.what = "certificate of " + (cluster.empty() ? std::string("this machine") : cluster) +
                  ": " + verdict + ", " + std::to_string(world) + " rank(s) on " +
                  std::to_string(hosts.size()) + " host(s)";

  std::map<std::string, reports::Layer> layers;
  const auto& phases = get_array(doc, "phases", "");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const std::string at = "phases[" + std::to_string(i) + "]";
    const std::string name = get_string(phases[i], "name", at);
    const auto& ls = get_array(phases[i], "layers", at);
    if (!ls.empty()) {
      if (!ls[0].is_string()) reject(at + ".layers[0]", "must be a string");
      try {
        layers[name] = reports::layer_from_string(ls[0].get<std::string>());
      } catch (const std::invalid_argument& e) {
        reject(at + ".layers[0]", e.what());
      }
    }
  }

  const auto& metrics = get_array(doc, "metrics", "");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string at = "metrics[" + std::to_string(i) + "]";
    Figure f;
    auto& m = f.measurement;
    m.name = get_string(metrics[i], "name", at);
    m.labels = get_string_map(metrics[i], "labels", at);
    m.value = value_or_nan(member(metrics[i], "value", at), at + ".value");
    m.unit = get_string(metrics[i], "unit", at);
    m.better = get_enum(metrics[i], "better", at,
                        [](const std::string& s) { return reports::better_from_string(s); });
    m.phase = get_string(metrics[i], "phase", at);
    require_sign(m.value, m.unit, at + ".value");
    auto it = layers.find(m.phase);
    f.layer = it != layers.end() ? it->second : phase_layer(m.phase);
    run.figures.push_back(std::move(f));
  }
  const auto& findings = get_array(doc, "findings", "");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    try {
      run.checks.push_back(check_of(reports::finding_from_json(findings[i]), ""));
    } catch (const std::runtime_error& e) {
      // finding_from_json names the field "finding.<key>": say which finding.
      const std::string what = e.what();
      const std::string rest = what.rfind("finding", 0) == 0 ? what.substr(7) : ": " + what;
      throw FieldError("findings[" + std::to_string(i) + "]" + rest);
    }
  }
  return run;
}

Run read_bench(const json& doc, Run run, const FigureTable& figures) {
  run.info.kind = RunKind::kBench;
  run.info.tool_version = get_string(doc, "version", "");
  if (doc.contains("machine")) run.info.machines.push_back(machine_from(doc["machine"], "machine", ""));
  std::map<std::string, std::string> labels;
  for (const char* key : {"op", "transport", "algorithm", "dtype", "redop"})
    labels[key] = get_string(doc, key, "");
  labels["ranks"] = std::to_string(get_int(doc, "ranks", ""));
  run.info.what =
      "bench " + labels["op"] + ", " + labels["ranks"] + " rank(s), " + labels["transport"];
  const auto& rows = get_array(doc, "rows", "");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "rows[" + std::to_string(i) + "]";
    const auto size = get_int(rows[i], "size", at);
    if (size < 0) reject(at + ".size", "must not be negative");
    for (const auto& [key, value] : rows[i].items()) {
      if (key == "size" || key == "count") continue;  // what the row is of, not a figure
      const std::string vat = at + "." + key;
      if (!value.is_number())
        reject(vat, std::string("must be a number, not ") + value.type_name());
      Figure f;
      auto& m = f.measurement;
      m.labels = labels;
      m.labels["bytes"] = std::to_string(size);
      m.value = value.get<double>();
      // bench writes wrong = -1 for a size it did not check (--no-check).
      if (key == "wrong" && m.value < 0) m.value = std::numeric_limits<double>::quiet_NaN();
      if (std::isfinite(m.value) && m.value < 0)
        reject(vat, "is " + value.dump() + ": a bench figure cannot be negative");
      m.phase = "bench";
      if (const BenchFigureRow* row = figures.bench_row(key)) {
        m.name = row->name;
        m.unit = row->unit;
        m.better = row->better;
      } else {
        m.name = "bench." + key;
        f.stated = false;
      }
      f.layer = reports::Layer::kL3;
      run.figures.push_back(std::move(f));
    }
  }
  return run;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Run read_report(const std::string& text, Run run, const FigureTable& figures) {
  reports::Report r;
  try {
    r = reports::report_from_json(text, run.info.source);
  } catch (const std::runtime_error& e) {
    // report_from_json already names the source: "<source>: <field>: <what>".
    std::string what = e.what();
    const std::string prefix = run.info.source + ": ";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    throw compat::InputError(run.info.source, 0, 0, "", what);
  }
  if (r.command == "gate")
    throw compat::InputError(run.info.source, 0, 0, "command",
                             "is the report of `gate` itself, not a run to compare");
  run.info.kind = RunKind::kReport;
  run.info.host = r.hostname;
  run.info.started = reports::format_iso8601_ms(r.started_unix_ms);
  run.info.tool_version = r.tool_version;
  run.info.machines.push_back(Machine{r.hostname, "", "", {}});
  run.info.what = r.command + " report of " + r.hostname + ": " +
                  std::to_string(r.findings.size()) + " finding(s)";
  for (const auto& finding : r.findings) {
    run.checks.push_back(check_of(finding, r.hostname));
    for (const auto& [metric, value] : finding.metrics) {
      Figure f;
      auto& m = f.measurement;
      m.name = lower(finding.code) + "." + metric;
      m.labels = {{"host", r.hostname}, {"entity", finding.entity}};
      m.value = value.value;
      m.unit = value.unit;
      m.phase = r.command;
      f.layer = finding.layer;
      require_sign(m.value, m.unit, "findings[" + finding.code + " " + finding.entity + "].metrics." + metric);
      if (const FindingFigureRow* row = figures.finding_row(finding.code, metric))
        m.better = row->better;
      else
        f.stated = false;
      run.figures.push_back(std::move(f));
    }
  }
  return run;
}

Run read_json_run(const std::string& text, Run run, const FigureTable& figures) {
  // The readers take the run by value: name the file from a copy.
  const std::string source = run.info.source;
  const json doc =
      compat::parse_json_text(text, run.info.source, compat::kMaxInputBytes, "not valid JSON");
  try {
    if (!doc.is_object()) reject("", std::string("must be an object, not ") + doc.type_name());
    if (doc.contains("schema")) {
      const std::string schema = get_string(doc, "schema", "");
      if (schema == kCertificateSchema) return read_certificate(doc, std::move(run));
      if (schema == reports::kReportSchemaName) return read_report(text, std::move(run), figures);
      if (schema == "hnprecheck.baseline")
        reject("schema", "this is a baseline, not a run (give it with --baseline)");
      reject("schema", "'" + schema + "' is not a run (expected " + kCertificateSchema + " or " +
                           reports::kReportSchemaName + ")");
    }
    if (doc.value("tool", json()) == "hnprecheck" && doc.value("command", json()) == "bench")
      return read_bench(doc, std::move(run), figures);
    reject("", "is not a run: expected a certificate, a JSON report or the JSON of `bench`");
  } catch (const FieldError& e) {
    throw compat::InputError(source, 0, 0, "", e.what());
  }
}

Run read_snapshot_run(const std::string& text, Run run) {
  YAML::Node root = compat::load_yaml_text(text, run.info.source);
  if (!root.IsMap() || !root["hostname"] || !root["version"])
    throw compat::InputError(run.info.source, 1, 0, "",
                             "is not a run: expected a certificate, a JSON report, the JSON of "
                             "`bench` or a snapshot (YAML with version and hostname)");
  const formats::Snapshot snap = formats::parse_snapshot(text, run.info.source);
  run.info.kind = RunKind::kSnapshot;
  run.info.host = snap.hostname;
  run.info.started = snap.captured_at;
  run.info.tool_version = snap.tool_version;
  run.info.what = "snapshot of " + snap.hostname;
  run.state = NodeState{snap.hostname, text};
  return run;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

Run read_run(const std::string& text, const std::string& source, const FigureTable& figures) {
  Run run;
  run.info.source = source;
  run.info.sha256 = sha256_hex(text);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '['))
    return read_json_run(text, std::move(run), figures);
  return read_snapshot_run(text, std::move(run));
}

}  // namespace hn::gate
