#include "probes/snapshot_sources.h"

#include <catch2/catch.hpp>

#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/mountinfo.h"
#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"

using namespace hn;

TEST_CASE("a loaded snapshot replays through the sources") {
  const formats::Snapshot s =
      formats::load_snapshot_file(std::string(HN_FIXTURE_DIR) + "/snapshots/netplane/roce-a.yaml");
  REQUIRE_FALSE(s.physical.links.empty());
  REQUIRE_FALSE(s.netplane.routes.empty());
  auto src = probes::sources_from_snapshot(s);
  CHECK_FALSE(src.live);
  CHECK(src.hostname == s.hostname);
  CHECK(src.physical->read_all() == s.physical);
  CHECK(src.netplane->read_all() == s.netplane);
  CHECK(src.storage->mounts() == s.mounts);
}

TEST_CASE("live capture reads this machine") {
  probes::NodeSources src;
  src.physical = stack::physical::make_live_source();
  src.netplane = stack::netplane::make_live_netplane_source();
  src.hostname = "here";
  auto snap = probes::capture_snapshot(src, "test");
  bool has_lo = false;
  for (const auto& l : snap.physical.links) has_lo = has_lo || l.name == "lo";
  CHECK(has_lo);
  bool lo_addr = false;
  for (const auto& a : snap.netplane.addresses)
    lo_addr = lo_addr || (a.nic == "lo" && a.address == "127.0.0.1");
  CHECK(lo_addr);
  // Whatever was captured must load back identically.
  auto back = formats::parse_snapshot(formats::snapshot_to_yaml(snap), "live");
  CHECK(back.physical == snap.physical);
  CHECK(back.netplane == snap.netplane);
}

TEST_CASE("live capture includes this process's mount table") {
  probes::NodeSources src;
  src.physical = stack::physical::make_live_source();
  src.netplane = stack::netplane::make_live_netplane_source();
  src.storage = stack::physical::make_live_storage_source();
  auto snap = probes::capture_snapshot(src, "test");
  REQUIRE_FALSE(snap.mounts.empty());
  CHECK(stack::physical::covering_mount(snap.mounts, "/")->mount_point == "/");
  CHECK(formats::parse_snapshot(formats::snapshot_to_yaml(snap), "live").mounts == snap.mounts);
}
