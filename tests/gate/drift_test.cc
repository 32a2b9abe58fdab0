#include "gate/drift.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/gate/fixture.h"

using namespace hn::gate;
using hn::formats::DiffEntry;

namespace {

Impact impact_of(const std::string& entity, const std::string& field,
                 std::span<const DriftRule> rules = builtin_drift_rules()) {
  auto d = classify({DiffEntry{entity, field, "a", "b"}}, rules);
  REQUIRE(d.size() == 1);
  return d[0].impact;
}

}  // namespace

TEST_CASE("drift table: what the issue calls significant is significant") {
  CHECK(impact_of("physical/links/eth1", "mtu") == Impact::kSignificant);
  CHECK(impact_of("physical/links/eth1", "speed_mbps") == Impact::kSignificant);
  CHECK(impact_of("netplane/routes/table 254 default", "gateway") == Impact::kSignificant);
  CHECK(impact_of("netplane/routes/table 100 10.10.0.0/24", "") == Impact::kSignificant);
  CHECK(impact_of("netplane/rules/rule 100 from 10.10.0.0/24", "table") == Impact::kSignificant);
  CHECK(impact_of("physical/rdma.devices/mlx5_0/ports/1/gids/3", "gid") == Impact::kSignificant);
  CHECK(impact_of("physical/rdma.devices/mlx5_0/ports/1/gids/3", "") == Impact::kSignificant);
  CHECK(impact_of("storage/mounts//mnt/shared", "fstype") == Impact::kSignificant);
  CHECK(impact_of("storage/mounts//mnt/shared", "options") == Impact::kSignificant);
  CHECK(impact_of("storage/mounts//mnt/shared", "super_options") == Impact::kSignificant);
}

TEST_CASE("drift table: counters, readings, ids and uptime are not") {
  for (const char* f : {"rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "ifindex"})
    CHECK(impact_of("physical/links/eth0", f) == Impact::kNone);
  CHECK(impact_of("physical", "memory.available_kib") == Impact::kNone);
  CHECK(impact_of("physical/thermal/thermal_zone0", "temp_c") == Impact::kNone);
  CHECK(impact_of("physical", "uptime_s") == Impact::kNone);
  CHECK(impact_of("storage/mounts//mnt/shared", "mount_id") == Impact::kNone);
  CHECK(impact_of("storage/mounts//run/netns/job1", "") == Impact::kNone);
}

TEST_CASE("drift table: the rest is reviewed, never dropped") {
  CHECK(impact_of("physical/links/eth0", "driver") == Impact::kReview);
  CHECK(impact_of("physical/rdma.devices/mlx5_0", "fw_ver") == Impact::kReview);
  CHECK(impact_of("something/new", "field") == Impact::kReview);
  // A table with no catch-all still files everything: kReview, saying why.
  std::vector<DriftRule> none;
  auto d = classify({DiffEntry{"x", "y", "1", "2"}}, none);
  CHECK(d[0].impact == Impact::kReview);
  CHECK(d[0].why == "no drift rule matches this difference");
}

TEST_CASE("drift: a rules file's rows come first") {
  std::vector<DriftRule> rules = {
      DriftRule{"physical/links/docker*", "*", Impact::kNone, "docker", "r.toml:3"}};
  rules.insert(rules.end(), builtin_drift_rules().begin(), builtin_drift_rules().end());
  CHECK(impact_of("physical/links/docker0", "present", rules) == Impact::kNone);
  CHECK(impact_of("physical/links/docker0", "present") == Impact::kSignificant);
}

TEST_CASE("drift: two real snapshots of this node, one with a changed MTU and route") {
  NodeState a{"vm", hn::test::gate_fixture("snapshot-vm.yaml")};
  NodeState b{"vm", hn::test::gate_fixture("snapshot-vm-changed.yaml")};
  auto diffs = diff_states(a, b);
  auto classified = classify(diffs, builtin_drift_rules());
  std::map<std::string, Impact> by;
  for (const auto& d : classified) by[d.diff.entity + " " + drift_field(d.diff)] = d.impact;
  CHECK(by.at("physical/links/eth0 mtu") == Impact::kSignificant);
  CHECK(by.at("netplane/routes/table 254 default gateway") == Impact::kSignificant);
  CHECK(by.at("physical/links/eth0 rx_bytes") == Impact::kNone);
  CHECK(by.at("physical memory.available_kib") == Impact::kNone);
  // Nothing the table does not know falls to the catch-all here.
  for (const auto& d : classified) CHECK(d.origin.find("drift.toml") != std::string::npos);
}

TEST_CASE("drift table: malformed rows are refused with file:line") {
  CHECK_THROWS_AS(parse_drift_table("version = 1\n[[rule]]\nentity = \"*\"\n", "t.toml"),
                  hn::compat::InputError);
  CHECK_THROWS_AS(
      parse_drift_table("[[rule]]\nentity = \"*\"\nfield = \"*\"\nimpact = \"none\"\nwhy = \"x\"\n",
                        "t.toml"),
      hn::compat::InputError);
  CHECK(builtin_drift_rules().back().entity == "*");
  CHECK(builtin_drift_rules().back().field == "*");
}
