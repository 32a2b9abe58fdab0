#include "probes/snapshot_sources.h"

#include <ctime>

#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"

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

formats::Snapshot capture_snapshot(const NodeSources& sources, const std::string& tool_version) {
  formats::Snapshot s;
  s.hostname = sources.hostname;
  s.captured_at = utc_now_iso();
  s.tool_version = tool_version;
  s.physical = sources.physical->read_all();
  s.netplane = sources.netplane->read_all();
  if (sources.storage) s.mounts = sources.storage->mounts();
  return s;
}

NodeSources sources_from_snapshot(const formats::Snapshot& s) {
  NodeSources src;
  src.physical = stack::physical::make_snapshot_source(s.physical);
  src.netplane = stack::netplane::make_snapshot_netplane_source(s.netplane);
  src.storage = stack::physical::make_snapshot_storage_source(s.mounts);
  src.hostname = s.hostname;
  src.live = false;
  return src;
}

}  // namespace hn::probes
