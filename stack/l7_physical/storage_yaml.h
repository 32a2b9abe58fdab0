#pragma once
// The mount table as YAML, for snapshots: `hnprecheck snapshot` writes it
// under the document's `storage:` key and the snapshot StorageSource reads it
// back. Layout:
//
//   mounts:                        # kernel order; over-mounts keep their order
//     - path: /mnt/shared          # the mount point (required; diff key)
//       fstype: nfs4               # required
//       source: "filer:/export"
//       root: /                    # "/sub" for a bind mount of a subdirectory
//       options: [rw, relatime]    # per-mount
//       super_options: [rw, vers=4.2, hard]
//       mount_id: 42               # ids, st_dev and propagation tags differ
//       parent_id: 27              # between nodes and boots; `diff` treats
//       major_minor: "0:53"        # them as volatile
//       optional_fields: [shared:1]
//
// Missing optional fields read as defaults, so hand-written fixtures stay
// short; unknown keys and wrong types are compat::InputErrors.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "stack/l7_physical/mountinfo.h"

namespace hn::stack::physical {

// mounts_from_yaml(mounts_to_yaml(x)) == x.
YAML::Node mounts_to_yaml(const std::vector<MountEntry>& mounts);

// Reads the map written by mounts_to_yaml; path is the dotted prefix used in
// error messages ("storage" -> storage.mounts[3].fstype).
std::vector<MountEntry> mounts_from_yaml(const YAML::Node& node, const std::string& source_name,
                                         const std::string& path);

}  // namespace hn::stack::physical
