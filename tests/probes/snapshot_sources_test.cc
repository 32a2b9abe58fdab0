#include "probes/snapshot_sources.h"

#include <catch2/catch.hpp>

#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/mountinfo.h"
#include "stack/l7_physical/source.h"
#include "stack/l7_physical/storage_source.h"

using namespace hn;

TEST_CASE("a loaded snapshot replays through the sources") {
  formats::Snapshot s;
  s.hostname = "node7";
  stack::physical::Link l;
  l.name = "eth1";
  l.mtu = 9000;
  l.kind = "vlan";
  l.vlan_id = 100;
  l.parent = "eth0";
  s.physical.links = {l};
  s.physical.rdma.supported = false;
  s.physical.rdma.unsupported_reason = "no RDMA";
  s.netplane.routes = {{254, "default", "10.0.0.1", "eth1", "", 0, 4, "unicast", "static"}};
  s.mounts = stack::physical::parse_mountinfo("27 1 254:0 / / rw - ext4 /dev/vda rw\n", "mountinfo");
  auto src = probes::sources_from_snapshot(formats::parse_snapshot(formats::snapshot_to_yaml(s), "s.yaml"));
  CHECK_FALSE(src.live);
  CHECK(src.hostname == "node7");
  CHECK(src.physical->links().at(0).vlan_id == 100);
  CHECK(src.netplane->routes().size() == 1);
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
