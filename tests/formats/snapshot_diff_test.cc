#include "formats/snapshot_diff.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

using hn::formats::diff_snapshots;

namespace {
const char* kA = R"(version: 1
hostname: a
captured_at: x
physical:
  links:
    - {name: eth0, mtu: 1500, rx_bytes: 10}
    - {name: eth1, mtu: 9000}
  memory: {total_kib: 100, available_kib: 50}
netplane:
  routes:
    - {table: 254, dst: default, oif: eth0}
)";
const char* kB = R"(version: 1
hostname: b
captured_at: y
physical:
  links:
    - {name: eth1, mtu: 1500}
    - {name: eth0, mtu: 1500, rx_bytes: 99}
    - {name: eth2, mtu: 1500}
  memory: {total_kib: 100, available_kib: 40}
netplane:
  routes:
    - {table: 254, dst: default, oif: eth1}
)";
}  // namespace

TEST_CASE("diff matches list items by key, not position, and skips volatile fields") {
  auto d = diff_snapshots(YAML::Load(kA), YAML::Load(kB), false);
  REQUIRE(d.size() == 3);
  CHECK(d[0].entity == "physical/links/eth1");
  CHECK(d[0].field == "mtu");
  CHECK(d[0].a == "9000");
  CHECK(d[0].b == "1500");
  CHECK(d[1].entity == "netplane/routes/table 254 default");
  CHECK(d[1].field == "oif");
  CHECK(d[2].entity == "physical/links/eth2");
  CHECK(d[2].a == "(absent)");
}

TEST_CASE("volatile fields appear on request, identical snapshots have no diff") {
  auto d = diff_snapshots(YAML::Load(kA), YAML::Load(kB), true);
  CHECK(d.size() == 5);
  CHECK(diff_snapshots(YAML::Load(kA), YAML::Load(kA), true).empty());
}

TEST_CASE("diff: policy rules are matched by priority and selectors, IPv4 settings by NIC") {
  auto a = YAML::Load(
      "version: 1\nnetplane:\n  rules:\n    - {priority: 0, family: 4, table: 255}\n"
      "    - {priority: 100, family: 4, src: 10.10.0.0/24, table: 100}\n"
      "  ipv4_conf: {eth1: {rp_filter: 2}}\n");
  auto b = YAML::Load(
      "version: 1\nnetplane:\n  rules:\n    - {priority: 100, family: 4, src: 10.10.0.0/24, table: "
      "101}\n"
      "    - {priority: 0, family: 4, table: 255}\n"
      "  ipv4_conf: {eth1: {rp_filter: 1}}\n");
  auto d = hn::formats::diff_snapshots(a, b, false);
  REQUIRE(d.size() == 2);
  CHECK(d[0].entity == "netplane/rules/rule 100 from 10.10.0.0/24");
  CHECK(d[0].field == "table");
  CHECK(d[1].entity == "netplane");
  CHECK(d[1].field == "ipv4_conf.eth1.rp_filter");
  CHECK(d[1].a == "2");
  CHECK(d[1].b == "1");
}

TEST_CASE("diff covers mounts by mount point, ids and device numbers are volatile") {
  const char* a = R"(version: 1
storage:
  mounts:
    - {path: /, fstype: ext4, source: /dev/vda, mount_id: 27, major_minor: "254:0"}
    - {path: /mnt/shared, fstype: nfs4, source: "filer:/train", options: [rw, nosuid],
       super_options: [rw, vers=4.2, hard], mount_id: 60, parent_id: 27, major_minor: "0:53"}
)";
  const char* b = R"(version: 1
storage:
  mounts:
    - {path: /, fstype: ext4, source: /dev/vda, mount_id: 31, major_minor: "254:1"}
    - {path: /scratch, fstype: tmpfs, source: tmpfs}
    - {path: /mnt/shared, fstype: nfs4, source: "filer:/train", options: [rw, nosuid],
       super_options: [rw, vers=4.2, soft], mount_id: 77, parent_id: 31, major_minor: "0:61"}
)";
  auto d = diff_snapshots(YAML::Load(a), YAML::Load(b), false);
  REQUIRE(d.size() == 2);
  CHECK(d[0].entity == "storage/mounts//mnt/shared");
  CHECK(d[0].field == "super_options");
  CHECK(d[0].a == "rw,vers=4.2,hard");
  CHECK(d[0].b == "rw,vers=4.2,soft");
  CHECK(d[1].entity == "storage/mounts//scratch");
  CHECK(d[1].a == "(absent)");
  CHECK(diff_snapshots(YAML::Load(a), YAML::Load(b), true).size() > 2);
}

TEST_CASE("diff: IPv4 and IPv6 default routes, and two routes with one key, stay apart") {
  // The IPv6 default route used to share the IPv4 one's entity and overwrite
  // its fields, so a changed IPv4 gateway went unseen.
  auto a = YAML::Load(
      "version: 1\nnetplane:\n  routes:\n"
      "    - {table: 254, dst: default, gateway: 192.0.2.1, family: 4}\n"
      "    - {table: 254, dst: default, gateway: 'fd00::1', family: 6}\n"
      "    - {table: 100, dst: 10.0.0.0/8, oif: eth1, metric: 10}\n"
      "    - {table: 100, dst: 10.0.0.0/8, oif: eth2, metric: 20}\n");
  auto b = YAML::Load(
      "version: 1\nnetplane:\n  routes:\n"
      "    - {table: 254, dst: default, gateway: 192.0.2.9, family: 4}\n"
      "    - {table: 254, dst: default, gateway: 'fd00::1', family: 6}\n"
      "    - {table: 100, dst: 10.0.0.0/8, oif: eth1, metric: 10}\n"
      "    - {table: 100, dst: 10.0.0.0/8, oif: eth3, metric: 20}\n");
  auto d = diff_snapshots(a, b, false);
  REQUIRE(d.size() == 2);
  CHECK(d[0].entity == "netplane/routes/table 254 default");
  CHECK(d[0].field == "gateway");
  CHECK(d[0].a == "192.0.2.1");
  CHECK(d[0].b == "192.0.2.9");
  CHECK(d[1].entity == "netplane/routes/table 100 10.0.0.0/8 #2");
  CHECK(d[1].field == "oif");
}
