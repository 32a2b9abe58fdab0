#pragma once
// A node snapshot: everything the node probes read, captured to one YAML
// file so that the same probes can replay it (`node --snapshot`), and two
// captures can be compared (`diff`). Layout:
//   version: 1
//   hostname: node0
//   captured_at: 2026-11-29T16:00:00Z
//   tool_version: 0.1.0
//   physical: {...}   stack/l7_physical/snapshot_yaml.h
//   netplane: {...}   stack/l6_netplane/snapshot_yaml.h
//   storage: {...}    stack/l7_physical/storage_yaml.h (the mount table only:
//                     capturing never touches a mounted file system)
// Loading rejects unknown keys, a version other than 1, a missing physical
// (with its memory), netplane or storage section, and values that cannot be
// real: addresses, prefixes, gateways and prefix lengths per family, link
// and RDMA port states, link layers, GID types (compat::InputError naming
// file:line and the field, exit 2). Capturing one from a node's sources and
// replaying one through them is probe wiring: probes/snapshot_sources.h.

#include <string>
#include <vector>

#include "stack/l6_netplane/state.h"
#include "stack/l7_physical/inventory.h"
#include "stack/l7_physical/mountinfo.h"

namespace hn::formats {

struct Snapshot {
  int version = 1;
  std::string hostname;
  std::string captured_at;
  std::string tool_version;
  stack::physical::Inventory physical;
  stack::netplane::NetState netplane;
  std::vector<stack::physical::MountEntry> mounts;
};

std::string snapshot_to_yaml(const Snapshot& snapshot);
Snapshot parse_snapshot(const std::string& text, const std::string& source_name);
Snapshot load_snapshot_file(const std::string& path);

}  // namespace hn::formats
