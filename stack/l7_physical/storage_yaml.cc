#include "stack/l7_physical/storage_yaml.h"

#include "compat/yaml_input.h"

namespace hn::stack::physical {

namespace {

// Option lists stay on one line: [rw, nosuid, relatime].
YAML::Node list(const std::vector<std::string>& items) {
  YAML::Node n(YAML::NodeType::Sequence);
  for (const auto& s : items) n.push_back(s);
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

}  // namespace

YAML::Node mounts_to_yaml(const std::vector<MountEntry>& mounts) {
  YAML::Node root(YAML::NodeType::Map);
  YAML::Node seq(YAML::NodeType::Sequence);
  for (const auto& m : mounts) {
    YAML::Node n(YAML::NodeType::Map);
    n["path"] = m.mount_point;
    n["fstype"] = m.fstype;
    n["source"] = m.source;
    n["root"] = m.root;
    n["options"] = list(m.mount_options);
    n["super_options"] = list(m.super_options);
    n["mount_id"] = m.mount_id;
    n["parent_id"] = m.parent_id;
    n["major_minor"] = m.major_minor;
    n["optional_fields"] = list(m.optional_fields);
    seq.push_back(n);
  }
  root["mounts"] = seq;
  return root;
}

std::vector<MountEntry> mounts_from_yaml(const YAML::Node& node, const std::string& source_name,
                                         const std::string& path) {
  compat::YamlMap root(node, source_name, path);
  std::vector<MountEntry> out;
  YAML::Node seq = root.get("mounts");
  if (seq.IsDefined() && !seq.IsNull() && !seq.IsSequence())
    compat::throw_at(seq, source_name, root.field("mounts"), "expected a list");
  for (std::size_t i = 0; seq.IsSequence() && i < seq.size(); ++i) {
    compat::YamlMap m(seq[i], source_name, root.field("mounts") + "[" + std::to_string(i) + "]");
    MountEntry e;
    e.mount_point = m.req_string("path");
    if (e.mount_point.empty() || e.mount_point[0] != '/')
      compat::throw_at(m.get("path"), source_name, m.field("path"), "must be an absolute path");
    e.fstype = m.req_string("fstype");
    e.source = m.opt_string("source").value_or("");
    e.root = m.opt_string("root").value_or("/");
    e.mount_options = m.string_list("options");
    e.super_options = m.string_list("super_options");
    e.mount_id = static_cast<int>(m.opt_int("mount_id", 0, INT32_MAX).value_or(0));
    e.parent_id = static_cast<int>(m.opt_int("parent_id", 0, INT32_MAX).value_or(0));
    e.major_minor = m.opt_string("major_minor").value_or("");
    e.optional_fields = m.string_list("optional_fields");
    m.finish();
    out.push_back(std::move(e));
  }
  root.finish();
  return out;
}

}  // namespace hn::stack::physical
