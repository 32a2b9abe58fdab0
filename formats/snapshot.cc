#include "formats/snapshot.h"

#include "compat/text_file.h"
#include "compat/yaml_input.h"
#include "stack/l6_netplane/snapshot_yaml.h"
#include "stack/l7_physical/snapshot_yaml.h"
#include "stack/l7_physical/storage_yaml.h"

namespace hn::formats {

std::string snapshot_to_yaml(const Snapshot& s) {
  YAML::Node root;
  root["version"] = s.version;
  root["hostname"] = s.hostname;
  root["captured_at"] = s.captured_at;
  root["tool_version"] = s.tool_version;
  root["physical"] = stack::physical::to_yaml(s.physical);
  root["netplane"] = stack::netplane::to_yaml(s.netplane);
  root["storage"] = stack::physical::mounts_to_yaml(s.mounts);
  YAML::Emitter out;
  out << root;
  return std::string("# hnprecheck node snapshot\n") + out.c_str() + "\n";
}

Snapshot parse_snapshot(const std::string& text, const std::string& source_name) {
  YAML::Node root = compat::load_yaml_text(text, source_name);
  if (!root.IsMap())
    throw compat::InputError(source_name, 0, 0, "",
                             "not a snapshot (expected a YAML map with version: 1)");
  compat::YamlMap m(root, source_name, "");
  // Unknown keys first: a misspelt section ("physicl") is the cause of the
  // missing one, and naming it is the useful message.
  for (const char* key :
       {"version", "hostname", "captured_at", "tool_version", "physical", "netplane", "storage"})
    m.has(key);
  m.finish();
  Snapshot s;
  s.version =
      static_cast<int>(compat::yaml_int(m.required("version"), source_name, "version", 1, 1));
  s.hostname = m.opt_string("hostname").value_or("");
  s.captured_at = m.opt_string("captured_at").value_or("");
  s.tool_version = m.opt_string("tool_version").value_or("");
  // `hnprecheck snapshot` always writes these three sections (and the memory
  // reading); without them a replay would judge an empty node (no NICs, 0 GiB
  // of memory) instead of saying the file is not a snapshot. An empty
  // section written on purpose (`netplane: {}`, `storage: {mounts: []}`) is fine.
  const YAML::Node physical = m.required("physical");
  s.physical = stack::physical::inventory_from_yaml(physical, source_name, "physical");
  if (!physical["memory"])  // a map by now
    compat::throw_at(physical, source_name, "physical.memory",
                     "missing required field (total_kib, available_kib)");
  s.netplane =
      stack::netplane::net_state_from_yaml(m.required("netplane"), source_name, "netplane");
  s.mounts = stack::physical::mounts_from_yaml(m.required("storage"), source_name, "storage");
  m.finish();
  return s;
}

Snapshot load_snapshot_file(const std::string& path) {
  return parse_snapshot(compat::read_text_file(path), path);
}

}  // namespace hn::formats
