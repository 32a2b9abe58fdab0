#pragma once
// Opens the sources node probes read: the live kernel, or a snapshot file.

#include <string>

#include "probes/node_context.h"

namespace hn::preflight {

probes::NodeSources open_live_sources();
// Throws compat::InputError when the snapshot is unreadable or malformed.
probes::NodeSources open_snapshot_sources(const std::string& path);

}  // namespace hn::preflight
