#include "migrate/manifest.h"

#include <filesystem>
#include <sstream>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/toml_input.h"
#include "compat/toml_table.h"
#include "compat/units.h"

namespace hn::migrate {

namespace {

using compat::TomlTable;

std::string where(const TomlTable& t, const toml::value& v) {
  return t.file() + ":" + std::to_string(compat::toml_line(v));
}

// File names in the manifest are relative to the manifest itself, so a job
// folder can be moved or checked in as a whole.
std::string resolve(const std::string& dir, const std::string& name) {
  if (name.empty() || name[0] == '/' || dir.empty()) return name;
  return (std::filesystem::path(dir) / name).lexically_normal().string();
}

class Reader {
 public:
  Reader(TomlTable t, std::string dir) : t_(std::move(t)), dir_(std::move(dir)) {}

  std::optional<Declared<std::string>> text(const std::string& key) {
    const toml::value* v = t_.get(key);
    if (!v) return std::nullopt;
    std::string s = t_.str(key);
    if (s.empty()) t_.fail(*v, t_.field(key), "must not be empty");
    return Declared<std::string>{s, where(t_, *v)};
  }
  std::optional<Declared<std::string>> file(const std::string& key) {
    auto d = text(key);
    if (d) d->value = resolve(dir_, d->value);
    return d;
  }
  std::vector<Declared<std::string>> texts(const std::string& key, bool files) {
    const toml::value* v = t_.get(key);
    std::vector<Declared<std::string>> out;
    if (!v) return out;
    for (auto& s : t_.strings(key)) {
      if (s.empty()) t_.fail(*v, t_.field(key), "an entry is empty");
      out.push_back({files ? resolve(dir_, s) : s, where(t_, *v)});
    }
    return out;
  }
  // A path on the nodes: absolute, or relative to the job's working directory
  // (kept as written; the storage section says it cannot be checked).
  std::optional<Declared<std::string>> node_path(const std::string& key) { return text(key); }

  std::optional<Declared<long long>> count(const std::string& key) {
    const toml::value* v = t_.get(key);
    if (!v) return std::nullopt;
    long long n = *t_.integer(key);
    if (n < 1) t_.fail(*v, t_.field(key), "must be at least 1, got " + std::to_string(n));
    return Declared<long long>{n, where(t_, *v)};
  }
  std::optional<Declared<double>> seconds(const std::string& key) {
    const toml::value* v = t_.get(key);
    if (!v) return std::nullopt;
    double s = *t_.number(key);
    if (!(s > 0)) t_.fail(*v, t_.field(key), "must be a positive number of seconds");
    return Declared<double>{s, where(t_, *v)};
  }
  std::optional<Declared<std::uint64_t>> size(const std::string& key) {
    const toml::value* v = t_.get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) t_.fail(*v, t_.field(key), "expected a size as a string, e.g. \"700GiB\"");
    try {
      return Declared<std::uint64_t>{compat::parse_size(v->as_string().str), where(t_, *v)};
    } catch (const std::invalid_argument& e) {
      t_.fail(*v, t_.field(key), e.what());
    }
  }
  TomlTable& table() { return t_; }

 private:
  TomlTable t_;
  std::string dir_;
};

}  // namespace

Manifest parse_manifest(const std::string& text, const std::string& file) {
  const toml::value root = compat::parse_toml_text(text, file);
  const std::string dir = std::filesystem::path(file).parent_path().string();
  Manifest m;
  m.file = file;
  Reader top(TomlTable(root, file, ""), dir);
  const toml::value* version = top.table().get("version");
  if (!version) throw compat::InputError(file, 1, 0, "version", "missing required key (1)");
  if (!version->is_integer() || version->as_integer() != 1)
    top.table().fail(*version, "version", "unsupported manifest version (this tool reads 1)");
  m.name = top.text("name");

  if (auto t = top.table().table("launch")) {
    Reader r(*t, dir);
    m.script = r.file("script");
    m.env_files = r.texts("env_files", true);
    m.k8s = r.file("k8s");
    m.from = r.text("from");
    m.pg_timeout_s = r.seconds("pg_timeout_s");
    r.table().finish();
  }
  if (auto t = top.table().table("model")) {
    Reader r(*t, dir);
    m.model = r.file("file");
    m.model_format = r.text("format");
    r.table().finish();
  }
  if (auto t = top.table().table("target")) {
    Reader r(*t, dir);
    m.profile = r.file("profile");
    m.backend = r.text("backend");
    m.matrix = r.file("matrix");
    m.mapping = r.file("mapping");
    m.library = r.text("library");
    m.platform = r.text("platform");
    m.plane = r.text("plane");
    m.local_port_range = r.text("local_port_range");
    m.reserved_ports = r.text("reserved_ports");
    if (m.backend && m.matrix)
      r.table().fail(*r.table().get("matrix"), "target.matrix",
                     "give either target.backend or target.matrix, not both");
    r.table().finish();
  }
  if (auto t = top.table().table("layout")) {
    Reader r(*t, dir);
    m.tp = r.count("tp");
    m.pp = r.count("pp");
    m.cp = r.count("cp");
    m.ep = r.count("ep");
    m.dp = r.count("dp");
    m.nodes = r.count("nodes");
    m.ranks_per_node = r.count("ranks_per_node");
    r.table().finish();
  }
  if (auto t = top.table().table("storage")) {
    Reader r(*t, dir);
    m.data = r.texts("data", false);
    m.checkpoint = r.node_path("checkpoint");
    m.load = r.node_path("load");
    m.logs = r.texts("logs", false);
    m.checkpoint_size = r.size("checkpoint_size");
    r.table().finish();
  }
  if (auto t = top.table().table("observability")) {
    Reader r(*t, dir);
    m.metrics = r.texts("metrics", false);
    r.table().finish();
  }
  if (auto t = top.table().table("evidence")) {
    Reader r(*t, dir);
    m.certificate = r.file("certificate");
    m.snapshots = r.texts("snapshots", true);
    m.node_reports = r.texts("node_reports", true);
    r.table().finish();
  }
  top.table().finish();
  return m;
}

Manifest load_manifest(const std::string& path) {
  return parse_manifest(compat::read_text_file(path), path);
}

}  // namespace hn::migrate
