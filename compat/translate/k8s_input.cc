#include "compat/translate/k8s_input.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "compat/input_error.h"
#include "compat/translate/shell_input.h"
#include "compat/translate/shell_lexer.h"
#include "compat/yaml_input.h"

namespace hn::compat::translate {

namespace {

// Plain (unquoted) scalars that YAML resolves to something other than a
// string; the API server refuses them as env values.
bool plain_scalar_is_not_string(const std::string& s) {
  static const std::regex kNonString(
      R"(^([-+]?[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N)$)");
  return std::regex_match(s, kNonString);
}

const std::set<std::string> kContainerLists = {"containers", "initContainers",
                                               "ephemeralContainers"};
// Maps of NAME: value that are environments: Ray's runtime_env.env_vars,
// NeMo/Megatron launcher ENV_VARS, docker-compose environment, ...
const std::set<std::string> kEnvMaps = {"env_vars",    "envVars", "ENV_VARS", "environment",
                                        "Environment", "env",     "envs",     "variables"};
// Strings that are shell command lines.
const std::set<std::string> kShellKeys = {"command", "args", "entrypoint", "script",
                                          "cmd",     "run",  "commands",   "Command"};

// Other names people give environment maps (env_common, common_env,
// extra_envs, environment_variables): a key that names an environment.
bool env_map_key(const std::string& key) {
  if (kEnvMaps.count(key)) return true;
  std::string k = key;
  for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k.rfind("env_", 0) == 0 || k.rfind("envs_", 0) == 0 ||
         (k.size() > 4 && k.compare(k.size() - 4, 4, "_env") == 0) ||
         (k.size() > 5 && k.compare(k.size() - 5, 5, "_envs") == 0) ||
         k.find("environment") != std::string::npos;
}

// A block of shell in a YAML string (a ConfigMap's script, a template's
// run step): several lines, and an export or a shebang.
bool shell_block(const std::string& s) {
  return s.find('\n') != std::string::npos &&
         (s.rfind("#!", 0) == 0 || s.find("export ") != std::string::npos);
}

class Walker {
 public:
  Walker(const std::string& text, const std::string& file)
      : file_(file), lines_(text_lines(text)) {}

  // A later ConfigMap of the same name replaces an earlier one, as a second
  // `kubectl apply` would. Erase-then-emplace, never YAML::Node::operator=:
  // assigning to a Node writes through to the node it refers to (it would
  // rewrite the first ConfigMap's data inside the tree), and throws
  // InvalidNode when the right side is a missing key such as an absent `data`.
  void collect_config_maps(const std::vector<YAML::Node>& docs) {
    for (const auto& d : docs) {
      if (!d.IsMap() || !d["kind"] || !d["kind"].IsScalar() || d["kind"].Scalar() != "ConfigMap")
        continue;
      const YAML::Node meta = d["metadata"];
      if (!meta || !meta.IsMap() || !meta["name"] || !meta["name"].IsScalar()) continue;
      const YAML::Node data = d["data"];
      const std::string name = meta["name"].Scalar();
      config_maps_.erase(name);
      // No `data`: a ConfigMap with no keys, which envFrom reads as nothing.
      config_maps_.emplace(name, data ? data : YAML::Node());
    }
  }

  void walk(const YAML::Node& n, const std::string& context) {
    if (n.IsSequence()) {
      for (const auto& item : n) walk(item, context);
      return;
    }
    if (!n.IsMap()) return;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      const YAML::Node v = it->second;  // a copy: it->second is a temporary
      if (kContainerLists.count(key) && v.IsSequence()) {
        for (size_t i = 0; i < v.size(); ++i) container(v[i], key + "[" + std::to_string(i) + "]");
      } else if (env_map_key(key) && v.IsMap()) {
        env_map(v, key);
      } else if (env_map_key(key) && v.IsSequence()) {
        env_list(v, key);
      } else if (v.IsScalar() && shell_block(v.Scalar())) {
        // A script kept in a ConfigMap or a template: read as the shell would.
        shell(v, context.empty() ? key : context + " " + key);
      } else if ((key == "runtimeEnvYAML" || key == "runtime_env") && v.IsScalar()) {
        nested_yaml(v, key);
      } else if (kShellKeys.count(key)) {
        shell(v, context.empty() ? key : context + " " + key);
      } else {
        walk(v, context);
      }
    }
  }

  EnvInput take(const std::string& text) {
    std::set<std::pair<std::string, int>> covered = covered_;
    for (const auto& e : out_.entries) {
      covered.insert({e.name, e.line});
      for (const auto& a : e.alternatives) covered.insert({e.name, a.line});
    }
    for (const auto& n : out_.notes) covered.insert({n.name, n.line});
    for (const auto& [line, name] : comm_mentions(text, true)) {
      if (covered.count({name, line})) continue;
      out_.notes.push_back(InputNote{InputNote::kUnread, name, file_, line, trimmed(line),
                                     "in a part of the document this reader does not know as "
                                     "an environment (env, envFrom, env_vars, command, args)"});
    }
    out_.flags = framework_flags(text, file_);
    return std::move(out_);
  }

 private:
  int line_of(const YAML::Node& n) const { return yaml_position(n).first; }

  std::string trimmed(int line) const {
    if (line < 1 || line > static_cast<int>(lines_.size())) return "";
    const std::string& s = lines_[line - 1];
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
  }

  // yaml-cpp marks a block scalar (`args: |`) at its indicator; the text
  // starts on the next line.
  int content_line(const YAML::Node& v) const {
    int l = line_of(v);
    if (l < 1 || l > static_cast<int>(lines_.size())) return l;
    const std::string& s = lines_[l - 1];
    size_t e = s.find_last_not_of(" \t\r");
    if (e == std::string::npos) return l;
    size_t b = e;
    while (b > 0 && (s[b] == '-' || s[b] == '+' || std::isdigit(static_cast<unsigned char>(s[b]))))
      --b;
    return (s[b] == '|' || s[b] == '>') ? l + 1 : l;
  }

  // The first line at or after `from` that names `name` (settings inside a
  // scalar carry the scalar's line; this finds their own).
  int locate(const std::string& name, int from) const {
    for (int l = std::max(from, 1); l <= static_cast<int>(lines_.size()); ++l)
      if (lines_[l - 1].find(name) != std::string::npos) return l;
    return from;
  }

  void container(const YAML::Node& c, const std::string& path) {
    if (!c.IsMap()) return;
    std::string name = c["name"] && c["name"].IsScalar() ? c["name"].Scalar() : path;
    const std::string context = "container " + name;
    YAML::Node env = c["env"];
    if (env && !env.IsNull()) {
      if (!env.IsSequence())
        throw_at(env, file_, path + ".env", "expected a list of {name, value}");
      for (size_t i = 0; i < env.size(); ++i)
        item(env[i], path + ".env[" + std::to_string(i) + "]", context);
    }
    if (YAML::Node from = c["envFrom"]; from && from.IsSequence())
      for (const auto& f : from) env_from(f, context);
    for (const char* k : {"command", "args"})
      if (c[k]) shell(c[k], context + " " + k);
  }

  void item(const YAML::Node& n, const std::string& field, const std::string& context) {
    if (!n.IsMap()) throw_at(n, file_, field, "expected {name: ..., value: ...}");
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string k = it->first.Scalar();
      if (k != "name" && k != "value" && k != "valueFrom")
        throw_at(it->first, file_, field + "." + k,
                 "unknown key '" + k + "' (an env item has name, value or valueFrom)");
    }
    YAML::Node name = n["name"];
    if (!name || !name.IsScalar() || name.Scalar().empty())
      throw_at(n, file_, field + ".name", "missing the variable name");
    EnvEntry e;
    e.name = name.Scalar();
    e.file = file_;
    e.context = context;
    // Each container is its own environment: a head and a worker (or a
    // sidecar) giving one name different values are alternatives, not an
    // override of one by the other.
    e.scope = container_scope(context);
    covered_.insert({e.name, line_of(name)});
    YAML::Node value = n["value"], from = n["valueFrom"];
    if (value && from)
      throw_at(n, file_, field, "has both value and valueFrom; Kubernetes allows only one");
    if (from) {
      e.line = line_of(name);
      e.dynamic = true;
      YAML::Emitter em;
      em << YAML::Flow << from;
      e.value = e.raw = std::string("valueFrom ") + em.c_str();
    } else if (value && !value.IsNull()) {
      if (!value.IsScalar()) throw_at(value, file_, field + ".value", "expected a string");
      if (value.Tag() == "?" && plain_scalar_is_not_string(value.Scalar()))
        throw_at(value, file_, field + ".value",
                 "'" + value.Scalar() +
                     "' is not a string; Kubernetes requires env values to be "
                     "strings: quote it (\"" +
                     value.Scalar() + "\")");
      e.line = line_of(name);  // the line that names it, as for valueFrom
      e.value = e.raw = value.Scalar();
    } else {
      e.line = line_of(name);  // no value: the variable is set to ""
    }
    out_.entries.push_back(std::move(e));
  }

  void env_from(const YAML::Node& f, const std::string& context) {
    if (!f.IsMap()) return;
    for (const char* kind : {"configMapRef", "secretRef"}) {
      YAML::Node ref = f[kind];
      if (!ref || !ref.IsMap()) continue;
      std::string name = ref["name"] && ref["name"].IsScalar() ? ref["name"].Scalar() : "";
      std::string prefix = f["prefix"] && f["prefix"].IsScalar() ? f["prefix"].Scalar() : "";
      auto it = config_maps_.find(name);
      if (std::string(kind) == "configMapRef" && it != config_maps_.end()) {
        if (it->second && it->second.IsMap())
          env_map(it->second, context + " via ConfigMap " + name, prefix);
        continue;
      }
      const bool secret = std::string(kind) == "secretRef";
      out_.notes.push_back(InputNote{
          InputNote::kUnread, "", file_, line_of(ref), trimmed(line_of(ref)),
          std::string(context + " takes every key of ") + (secret ? "Secret " : "ConfigMap ") +
              name + " as environment variables, and " +
              (secret ? "a Secret's values are not in this file"
                      : "that ConfigMap is not in this file") +
              ": its settings were not read; give the file that holds it too"});
    }
  }

  // "container worker" for a container's settings (also those it takes from
  // a ConfigMap), "" for maps that are not a container's.
  static std::string container_scope(const std::string& context) {
    if (context.rfind("container ", 0) != 0) return "";
    const std::size_t via = context.find(" via ");
    return via == std::string::npos ? context : context.substr(0, via);
  }

  // `shadowed`: names a map that merges this one (<<) sets itself; YAML
  // gives those the merging map's value, so the merged one never applies.
  void env_map(const YAML::Node& m, const std::string& context, const std::string& prefix = "",
               const std::set<std::string>& shadowed = {}, int depth = 0) {
    // Merge keys nest through aliases; a deeper chain than any real file
    // has (or an alias of an enclosing map) is bad input, not a recursion.
    if (depth > 32) throw_at(m, file_, context, "merge keys (<<) nested more than 32 deep");
    std::set<std::string> own = shadowed;
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() != "<<") own.insert(it->first.Scalar());
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      // YAML's merge key (<<: *common): the anchored map's entries apply
      // where this map does not set the name itself (yaml-cpp keeps "<<"
      // as an ordinary key).
      if (it->first.Scalar() == "<<") {
        const YAML::Node merged = it->second;
        if (merged.IsMap()) env_map(merged, context, prefix, own, depth + 1);
        if (merged.IsSequence())
          for (const auto& one : merged)
            if (one.IsMap()) env_map(one, context, prefix, own, depth + 1);
        continue;
      }
      if (shadowed.count(it->first.Scalar())) {
        covered_.insert({prefix + it->first.Scalar(), line_of(it->first)});
        continue;
      }
      std::string name = prefix + it->first.Scalar();
      if (!is_shell_name(name)) continue;
      // A copy: it->second lives in a proxy that dies at the end of this statement.
      const YAML::Node v = it->second;
      covered_.insert({name, line_of(it->first)});
      if (v.IsNull()) {
        out_.notes.push_back(InputNote{InputNote::kUnset, name, file_, line_of(it->first),
                                       trimmed(line_of(it->first)),
                                       "null: the variable is not set"});
        continue;
      }
      if (!v.IsScalar()) continue;
      EnvEntry e;
      e.name = name;
      e.value = e.raw = v.Scalar();
      e.file = file_;
      e.line = line_of(v);
      e.context = context;
      e.scope = container_scope(context);
      e.dynamic =
          e.value.find("${") != std::string::npos || e.value.find("{{") != std::string::npos;
      out_.entries.push_back(std::move(e));
    }
  }

  // environment: ["A=1", ...] (compose) or [{Name: A, Value: "1"}] (AWS Batch/ECS).
  void env_list(const YAML::Node& s, const std::string& context) {
    for (const auto& item : s) {
      if (item.IsScalar()) {
        const std::string& t = item.Scalar();
        size_t eq = t.find('=');
        if (eq == std::string::npos || !is_shell_name(t.substr(0, eq))) continue;
        EnvEntry e;
        e.name = t.substr(0, eq);
        e.value = e.raw = t.substr(eq + 1);
        e.file = file_;
        e.line = line_of(item);
        e.context = context;
        out_.entries.push_back(std::move(e));
      } else if (item.IsMap()) {
        YAML::Node n = item["name"] ? item["name"] : item["Name"];
        YAML::Node v = item["value"] ? item["value"] : item["Value"];
        if (!n || !n.IsScalar() || !is_shell_name(n.Scalar())) continue;
        covered_.insert({n.Scalar(), line_of(n)});
        if (!v || !v.IsScalar()) continue;
        EnvEntry e;
        e.name = n.Scalar();
        e.value = e.raw = v.Scalar();
        e.file = file_;
        e.line = line_of(n);
        e.context = context;
        out_.entries.push_back(std::move(e));
      }
    }
  }

  void nested_yaml(const YAML::Node& v, const std::string& key) {
    std::vector<YAML::Node> docs;
    try {
      docs = load_yaml_documents(v.Scalar(), file_ + " (" + key + ")");
    } catch (const InputError&) {
      return;  // not YAML after all: the safety net reports what it held
    }
    Walker inner(v.Scalar(), file_);
    for (const auto& d : docs) inner.walk(d, key);
    const int base = content_line(v);
    for (auto& e : inner.out_.entries) {
      e.line = locate(e.name, base + e.line - 1);
      if (e.context.empty()) e.context = key;
      out_.entries.push_back(std::move(e));
    }
    for (auto& n : inner.out_.notes) {
      n.line = locate(n.name, base + n.line - 1);
      out_.notes.push_back(std::move(n));
    }
  }

  // A shell command line (or a list of words of one) inside the document.
  void shell(const YAML::Node& v, const std::string& context) {
    if (v.IsSequence()) {
      for (const auto& item : v) shell(item, context);
      return;
    }
    if (!v.IsScalar()) {
      walk(v, context);
      return;
    }
    const std::string& text = v.Scalar();
    if (text.find('_') == std::string::npos) return;
    EnvInput in;
    try {
      in = read_shell_text(text, file_, ShellMode::kScript);
    } catch (const InputError&) {
      return;  // not a complete shell text (one word of an argv): the net reports it
    }
    const int base = content_line(v);
    for (auto& e : in.entries) {
      e.line = locate(e.name, base + e.line - 1);
      for (auto& a : e.alternatives) a.line = locate(e.name, base + a.line - 1);
      if (e.scope.empty()) {
        e.context = context;
        e.scope = context + " at line " + std::to_string(base);
      } else {
        e.context = context + ", " + e.context;
      }
      out_.entries.push_back(std::move(e));
    }
    for (auto& n : in.notes) {
      n.line = locate(n.name.empty() ? n.text : n.name, base + n.line - 1);
      out_.notes.push_back(std::move(n));
    }
    for (auto& f : in.flags) f.line = base + f.line - 1;
  }

  const std::string& file_;
  std::vector<std::string> lines_;
  std::map<std::string, YAML::Node> config_maps_;
  std::set<std::pair<std::string, int>> covered_;
  EnvInput out_;
};

}  // namespace

EnvInput read_manifest_text(const std::string& text, const std::string& file) {
  // Several documents are normal here (a Deployment and a Service); a key
  // given twice in one map is not.
  std::vector<YAML::Node> docs = load_yaml_documents(text, file);
  Walker w(text, file);
  w.collect_config_maps(docs);
  for (const auto& d : docs) w.walk(d, "");
  return w.take(text);
}

std::vector<EnvEntry> parse_k8s_manifest_text(const std::string& text, const std::string& file) {
  return read_manifest_text(text, file).entries;
}

}  // namespace hn::compat::translate
