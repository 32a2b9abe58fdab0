#include "formats/snapshot.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "stack/l7_physical/mountinfo.h"

using namespace hn;

TEST_CASE("a snapshot round-trips through YAML") {
  formats::Snapshot s;
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
  formats::Snapshot back = formats::parse_snapshot(formats::snapshot_to_yaml(s), "s.yaml");
  CHECK(back.hostname == "node7");
  CHECK(back.physical == s.physical);
  CHECK(back.netplane == s.netplane);
  CHECK(back.mounts == s.mounts);
  CHECK(back.mounts.at(1).mount_point == "/mnt/shared x");
}

TEST_CASE("bad snapshots are InputErrors with the field") {
  CHECK_THROWS_WITH(formats::parse_snapshot("version: 1\nphysicl: {}\n", "s.yaml"),
                    Catch::Contains("s.yaml:2:1: physicl: unknown key"));
  CHECK_THROWS_WITH(formats::parse_snapshot("version: 3\n", "s.yaml"), Catch::Contains("version"));
  CHECK_THROWS_AS(formats::parse_snapshot("- a\n- b\n", "s.yaml"), compat::InputError);
}
