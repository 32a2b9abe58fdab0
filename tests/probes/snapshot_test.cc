#include "probes/snapshot.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "stack/l7_physical/mountinfo.h"
#include "stack/l7_physical/storage_source.h"

using namespace hn;

TEST_CASE("a snapshot round-trips through YAML and replays through sources") {
  probes::Snapshot s;
  s.hostname = "node7";
  s.captured_at = "2026-11-29T00:00:00Z";
  s.tool_version = "0.1.0";
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
  s.mounts = stack::physical::parse_mountinfo(
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "60 27 0:53 / /mnt/shared\\040x rw,nosuid shared:7 - nfs4 filer:/e rw,vers=4.2,hard\n",
      "mountinfo");
  probes::Snapshot back = probes::parse_snapshot(probes::snapshot_to_yaml(s), "s.yaml");
  CHECK(back.hostname == "node7");
  CHECK(back.physical == s.physical);
  CHECK(back.netplane == s.netplane);
  CHECK(back.mounts == s.mounts);
  CHECK(back.mounts.at(1).mount_point == "/mnt/shared x");
  auto src = probes::sources_from_snapshot(back);
  CHECK_FALSE(src.live);
  CHECK(src.physical->links().at(0).vlan_id == 100);
  CHECK(src.netplane->routes().size() == 1);
  CHECK(src.storage->mounts() == s.mounts);
}

TEST_CASE("bad snapshots are InputErrors with the field") {
  CHECK_THROWS_WITH(probes::parse_snapshot("version: 1\nphysicl: {}\n", "s.yaml"),
                    Catch::Contains("s.yaml:2:1: physicl: unknown key"));
  CHECK_THROWS_WITH(probes::parse_snapshot("version: 3\n", "s.yaml"), Catch::Contains("version"));
  CHECK_THROWS_AS(probes::parse_snapshot("- a\n- b\n", "s.yaml"), compat::InputError);
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
  auto back = probes::parse_snapshot(probes::snapshot_to_yaml(snap), "live");
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
  CHECK(probes::parse_snapshot(probes::snapshot_to_yaml(snap), "live").mounts == snap.mounts);
}
