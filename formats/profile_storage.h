#pragma once
// Reading the `storage:` section of the cluster profile (profile.cc calls it):
// mounts (path, fstype, options, capacity, deadline) and the jitter workload
// with its warn/fail limits, each warn limit checked against its fail limit.
// Throws compat::InputError naming file:line and the field.

#include "compat/yaml_input.h"
#include "formats/profile.h"

namespace hn::formats {

StorageSpec parse_storage_spec(compat::YamlMap m);

}  // namespace hn::formats
