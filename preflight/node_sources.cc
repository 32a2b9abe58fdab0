#include "preflight/node_sources.h"

#include "formats/snapshot.h"
#include "preflight/report_output.h"
#include "probes/snapshot_sources.h"
#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/cached_source.h"
#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"

namespace hn::preflight {

probes::NodeSources open_live_sources() {
  probes::NodeSources s;
  // Each section is read once per run and shared by every probe: one
  // coherent view of the node, and no probe walks sysfs or dumps netlink
  // again (with many NICs that repetition dominated the run time).
  s.physical = stack::physical::make_cached_source(stack::physical::make_live_source());
  s.netplane =
      stack::netplane::make_cached_netplane_source(stack::netplane::make_live_netplane_source());
  s.storage = stack::physical::make_live_storage_source();
  s.hostname = local_hostname();
  s.live = true;
  return s;
}

probes::NodeSources open_snapshot_sources(const std::string& path) {
  return probes::sources_from_snapshot(formats::load_snapshot_file(path));
}

}  // namespace hn::preflight
