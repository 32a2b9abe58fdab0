#pragma once
// A node's sources to and from a snapshot (the file format is
// formats/snapshot.h). capture_snapshot() reads every source once (the
// physical inventory, the network state and the mount table; never a mounted
// file system) and stamps the time of capture; it throws what the sources
// throw (stack::physical::SourceError and friends), so a caller that must not
// block runs it in a supervised worker (preflight/snapshot_capture.h).
// sources_from_snapshot() replays a loaded snapshot through the snapshot
// sources of each layer, with `live` false; it does not throw.

#include <string>

#include "formats/snapshot.h"
#include "probes/node_context.h"

namespace hn::probes {

formats::Snapshot capture_snapshot(const NodeSources& sources, const std::string& tool_version);
NodeSources sources_from_snapshot(const formats::Snapshot& snapshot);

}  // namespace hn::probes
