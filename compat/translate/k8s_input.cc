#include "compat/translate/k8s_input.h"

#include <yaml-cpp/yaml.h>

#include <regex>

#include "compat/input_error.h"
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

class Walker {
 public:
  Walker(const std::string& file) : file_(file) {}

  void walk(const YAML::Node& n) {
    if (n.IsSequence()) {
      for (const auto& item : n) walk(item);
      return;
    }
    if (!n.IsMap()) return;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      if ((key == "containers" || key == "initContainers" || key == "ephemeralContainers") &&
          it->second.IsSequence()) {
        for (size_t i = 0; i < it->second.size(); ++i)
          container(it->second[i], key + "[" + std::to_string(i) + "]");
      } else {
        walk(it->second);
      }
    }
  }

  std::vector<EnvEntry> take() { return std::move(out_); }

 private:
  void container(const YAML::Node& c, const std::string& path) {
    if (!c.IsMap()) return;
    std::string name = c["name"] && c["name"].IsScalar() ? c["name"].Scalar() : path;
    YAML::Node env = c["env"];
    if (!env || env.IsNull()) return;
    if (!env.IsSequence()) throw_at(env, file_, path + ".env", "expected a list of {name, value}");
    for (size_t i = 0; i < env.size(); ++i)
      item(env[i], path + ".env[" + std::to_string(i) + "]", "container " + name);
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
    YAML::Node value = n["value"], from = n["valueFrom"];
    if (value && from)
      throw_at(n, file_, field, "has both value and valueFrom; Kubernetes allows only one");
    if (from) {
      e.line = yaml_position(from).first;
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
      e.line = yaml_position(value).first;
      e.value = e.raw = value.Scalar();
    } else {
      e.line = yaml_position(name).first;  // no value: the variable is set to ""
    }
    out_.push_back(std::move(e));
  }

  const std::string& file_;
  std::vector<EnvEntry> out_;
};

}  // namespace

std::vector<EnvEntry> parse_k8s_manifest_text(const std::string& text, const std::string& file) {
  // Several documents are normal here (a Deployment and a Service); a key
  // given twice in one map is not.
  std::vector<YAML::Node> docs = load_yaml_documents(text, file);
  Walker w(file);
  for (const auto& d : docs) w.walk(d);
  return w.take();
}

}  // namespace hn::compat::translate
