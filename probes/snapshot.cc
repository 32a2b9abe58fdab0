#include "probes/snapshot.h"

#include <ctime>

#include "compat/text_file.h"
#include "compat/yaml_input.h"
#include "stack/l6_netplane/snapshot_yaml.h"
#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/snapshot_yaml.h"
#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"
#include "stack/l7_physical/storage_yaml.h"

namespace hn::probes {

namespace {
std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

Snapshot capture_snapshot(const NodeSources& sources, const std::string& tool_version) {
  Snapshot s;
  s.hostname = sources.hostname;
  s.captured_at = utc_now_iso();
  s.tool_version = tool_version;
  s.physical = sources.physical->read_all();
  s.netplane = sources.netplane->read_all();
  if (sources.storage) s.mounts = sources.storage->mounts();
  return s;
}

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

NodeSources sources_from_snapshot(const Snapshot& s) {
  NodeSources src;
  src.physical = stack::physical::make_snapshot_source(s.physical);
  src.netplane = stack::netplane::make_snapshot_netplane_source(s.netplane);
  src.storage = stack::physical::make_snapshot_storage_source(s.mounts);
  src.hostname = s.hostname;
  src.live = false;
  return src;
}

}  // namespace hn::probes
