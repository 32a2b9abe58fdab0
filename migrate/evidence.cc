#include "migrate/evidence.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "compat/input_guard.h"
#include "compat/json_input.h"
#include "compat/text_file.h"
#include "reports/json_report.h"

namespace hn::migrate {

namespace {

using nlohmann::json;

class CertReader {
 public:
  explicit CertReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw compat::InputError(file_, 0, 0, field, what);
  }
  const json& member(const json& j, const std::string& key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(path + key, "missing");
    return j.at(key);
  }
  std::string str(const json& j, const std::string& key, const std::string& path) const {
    const json& v = member(j, key, path);
    if (!v.is_string()) fail(path + key, "expected a string");
    return v.get<std::string>();
  }
  const json& array(const json& j, const std::string& key, const std::string& path) const {
    const json& v = member(j, key, path);
    if (!v.is_array()) fail(path + key, "expected an array");
    return v;
  }

 private:
  std::string file_;
};

Certificate read_certificate(const json& doc, const std::string& file) {
  CertReader r(file);
  Certificate c;
  c.file = file;
  if (r.str(doc, "schema", "") != "hnprecheck.certificate")
    r.fail("schema", "expected \"hnprecheck.certificate\" (is this a certify certificate?)");
  const json& version = r.member(doc, "schema_version", "");
  if (!version.is_number_integer()) r.fail("schema_version", "expected an integer");
  if (version.get<long long>() > kCertificateSchemaVersion || version.get<long long>() < 1)
    r.fail("schema_version", "version " + std::to_string(version.get<long long>()) +
                                 " is not one this tool reads (it reads up to " +
                                 std::to_string(kCertificateSchemaVersion) + ")");
  c.cluster = r.str(doc, "cluster", "");
  c.verdict = r.str(doc, "verdict", "");
  if (c.verdict != "certified" && c.verdict != "partial" && c.verdict != "not_certified" &&
      c.verdict != "incomplete")
    r.fail("verdict", "expected certified, partial, not_certified or incomplete, got '" +
                          c.verdict + "'");
  c.finished = r.str(doc, "finished", "");
  const json& hosts = r.array(doc, "hosts", "");
  for (size_t i = 0; i < hosts.size(); ++i)
    c.hosts.push_back(r.str(hosts[i], "name", "hosts[" + std::to_string(i) + "]."));
  const json& phases = r.array(doc, "phases", "");
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string at = "phases[" + std::to_string(i) + "].";
    CertificatePhase p;
    p.name = r.str(phases[i], "name", at);
    try {
      p.status = reports::status_from_string(r.str(phases[i], "status", at));
    } catch (const std::invalid_argument& e) {
      r.fail(at + "status", e.what());
    }
    for (const auto& l : r.array(phases[i], "layers", at)) {
      if (!l.is_string()) r.fail(at + "layers", "expected strings such as \"L3\"");
      p.layers.push_back(l.get<std::string>());
    }
    c.phases.push_back(std::move(p));
  }
  const json& metrics = r.array(doc, "metrics", "");
  for (size_t i = 0; i < metrics.size(); ++i) {
    const std::string at = "metrics[" + std::to_string(i) + "].";
    const json& m = metrics[i];
    reports::Measurement x;
    x.name = r.str(m, "name", at);
    x.unit = r.str(m, "unit", at);
    x.phase = r.str(m, "phase", at);
    try {
      x.better = reports::better_from_string(r.str(m, "better", at));
    } catch (const std::invalid_argument& e) {
      r.fail(at + "better", e.what());
    }
    const json& value = r.member(m, "value", at);
    if (value.is_null())
      x.value = std::nan("");
    else if (value.is_number())
      x.value = value.get<double>();
    else
      r.fail(at + "value", "expected a number or null");
    const json& labels = r.member(m, "labels", at);
    if (!labels.is_object()) r.fail(at + "labels", "expected an object of strings");
    for (const auto& [k, v] : labels.items()) {
      if (!v.is_string()) r.fail(at + "labels." + k, "expected a string");
      x.labels[k] = v.get<std::string>();
    }
    c.metrics.push_back(std::move(x));
  }
  const json& findings = r.array(doc, "findings", "");
  for (size_t i = 0; i < findings.size(); ++i) {
    try {
      c.findings.push_back(reports::finding_from_json(findings[i]));
    } catch (const std::exception& e) {
      r.fail("findings[" + std::to_string(i) + "]", e.what());
    }
  }
  return c;
}

// The figure of a finding about `mount_path` (its evidence "path").
std::optional<double> finding_metric(const reports::Finding& f, const char* code,
                                     const std::string& mount_path, const char* metric) {
  if (f.code != code) return std::nullopt;
  auto p = f.evidence.find("path");
  if (p == f.evidence.end() || p->second != mount_path) return std::nullopt;
  auto m = f.metrics.find(metric);
  if (m == f.metrics.end() || !std::isfinite(m->second.value)) return std::nullopt;
  return m->second.value;
}

void keep_min(std::optional<Figure>& best, double v, const std::string& from) {
  if (!best || v < best->value) best = Figure{v, from};
}

std::string host_of(const reports::Finding& f) {
  auto h = f.evidence.find("host");
  return h == f.evidence.end() ? "" : ", host " + h->second;
}

std::optional<Figure> smallest(const Evidence& e, const char* code, const std::string& mount,
                               const char* metric) {
  std::optional<Figure> best;
  if (e.certificate)
    for (const auto& f : e.certificate->findings)
      if (auto v = finding_metric(f, code, mount, metric))
        keep_min(best, *v, e.certificate->file + host_of(f));
  for (size_t i = 0; i < e.node_reports.size(); ++i)
    for (const auto& f : e.node_reports[i].findings)
      if (auto v = finding_metric(f, code, mount, metric))
        keep_min(best, *v, e.node_report_files[i] + ", host " + e.node_reports[i].hostname);
  return best;
}

}  // namespace

Certificate parse_certificate(const std::string& text, const std::string& file) {
  const json doc = compat::parse_json_text(text, file, compat::kMaxInputBytes, "not valid JSON");
  if (!doc.is_object()) throw compat::InputError(file, 0, 0, "", "expected a JSON object");
  return read_certificate(doc, file);
}

std::optional<Figure> Evidence::free_gib(const std::string& mount_path) const {
  return smallest(*this, "STOR-MOUNT-FREE-SPACE", mount_path, "free");
}

std::optional<Figure> Evidence::write_mbps(const std::string& mount_path) const {
  std::optional<Figure> best = smallest(*this, "STOR-CHECKPOINT-WRITE", mount_path, "write");
  if (certificate)
    for (const auto& m : certificate->metrics) {
      auto mount = m.labels.find("mount");
      if (m.name != "storage.write_throughput" || mount == m.labels.end() ||
          mount->second != mount_path || !std::isfinite(m.value) || m.unit != "MB/s")
        continue;
      auto host = m.labels.find("host");
      keep_min(best, m.value,
               certificate->file + (host == m.labels.end() ? "" : ", host " + host->second));
    }
  return best;
}

Evidence load_evidence(const std::optional<std::string>& certificate,
                       const std::vector<std::string>& node_reports,
                       const std::vector<std::string>& snapshots) {
  Evidence e;
  if (certificate)
    e.certificate = parse_certificate(compat::read_text_file(*certificate), *certificate);
  for (const auto& path : node_reports) {
    // report_from_json parses by itself (reports/ cannot include compat/):
    // the guard runs here, first, like every structured reader's.
    const std::string text = compat::read_text_file(path);
    compat::guard_structured_text(text, path, compat::Syntax::kJson);
    try {
      e.node_reports.push_back(reports::report_from_json(text, path));
    } catch (const compat::InputError&) {
      throw;
    } catch (const std::runtime_error& err) {
      // report_from_json already names the source: "<source>: <field>: <what>".
      std::string what = err.what();
      if (what.rfind(path + ": ", 0) == 0) what = what.substr(path.size() + 2);
      throw compat::InputError(path, 0, 0, "", what);
    }
    e.node_report_files.push_back(path);
  }
  for (const auto& path : snapshots) {
    e.snapshots.push_back(formats::load_snapshot_file(path));
    e.snapshot_files.push_back(path);
  }
  return e;
}

}  // namespace hn::migrate
