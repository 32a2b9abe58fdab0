#pragma once
// What node probes read from: the sources of every layer, live or replayed
// from a snapshot, plus who this node is in the profile. Held by shared_ptr
// because in-process probes run on threads that may outlive a deadline.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/profile.h"
#include "probes/comm_env.h"
#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"

namespace hn::probes {

struct NodeSources {
  std::shared_ptr<const stack::physical::PhysicalSource> physical;
  std::shared_ptr<const stack::netplane::NetplaneSource> netplane;
  std::shared_ptr<const stack::physical::StorageSource> storage;  // the mount table
  std::string hostname;
  bool live = true;  // false when replaying a snapshot
};

struct NodeContext {
  std::shared_ptr<const formats::Profile> profile;
  NodeSources sources;
  const formats::NodeSpec* node = nullptr;  // this node's entry in profile->nodes, if any
  CommEnv env;                              // the job's communication-library settings (comm_env.h)
  // Run the storage jitter workload even when the profile has no
  // storage.jitter section (node --storage-jitter).
  bool storage_jitter = false;
};

// This node's entry: the one named `requested` (--node; throws
// compat::InputError when it is empty or the profile has no such node), else
// the one named like the hostname (or its short form), else nullptr (the
// PROFILE-NODE finding says what that costs).
const formats::NodeSpec* identify_node(const formats::Profile& profile, const std::string& hostname,
                                       const std::optional<std::string>& requested = std::nullopt);

// "gpu01, gpu02": the names in `names` (the profile's nodes by default), the
// first `max`, then ", ... (N more)"; "none" when empty.
std::string node_name_list(const std::vector<std::string>& names, size_t max = 16);
std::string declared_node_names(const formats::Profile& profile, size_t max = 16);

}  // namespace hn::probes
