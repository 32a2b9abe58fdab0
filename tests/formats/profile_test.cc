#include "formats/profile.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "compat/input_error.h"
#include "tests/support/readme_blocks.h"

using hn::compat::InputError;
using hn::formats::parse_profile;

namespace {
// Parses and returns the error, failing the test when there is none.
InputError error_of(const std::string& text) {
  try {
    parse_profile(text, "p.yaml");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("profile was accepted: " << text);
  throw;  // unreachable
}
}  // namespace

TEST_CASE("the full example profile (fixtures/profiles/full.yaml) parses completely") {
  auto p = hn::formats::load_profile_file(HN_FIXTURE_DIR "/profiles/full.yaml");
  CHECK(p.cluster == "demo");
  REQUIRE(p.planes.size() == 3);
  const auto& param = p.planes[0];
  CHECK(param.type == hn::stack::netplane::PlaneType::kParameter);
  CHECK(param.subnets.at(0).str() == "10.10.0.0/24");
  CHECK(param.vlan == 100);
  CHECK(param.vlan_parent == "ens1f0");
  CHECK(param.mtu == 9000);
  CHECK(param.min_speed_mbps == 100000);
  REQUIRE(param.rdma.has_value());
  CHECK(param.rdma->gid_type == "RoCE v2");
  CHECK(param.rdma->gid_index == 3);
  CHECK(p.planes[1].subnets.size() == 2);
  CHECK(p.planes[2].peers == std::vector<std::string>{"10.30.0.254"});
  REQUIRE(p.nodes.size() == 2);
  CHECK(p.nodes[1].nics.at("param0") == "ens2f0");
  REQUIRE(p.storage.mounts.size() == 1);
  CHECK(p.storage.mounts[0].fstypes.size() == 3);
  CHECK(p.storage.mounts[0].forbid_options == std::vector<std::string>{"soft"});
  CHECK(p.storage.jitter.block_bytes == 4096);
  CHECK(p.storage.jitter.fail.p999_ms == 500);
  CHECK(p.physical.accelerators->count == 8);
  CHECK(p.comm.pfc_priority == 4);
  CHECK(p.domains.at(0).nodes.size() == 2);
}

TEST_CASE("storage mounts and jitter: defaults, new keys and old profiles") {
  auto p = hn::formats::parse_profile(R"(version: 1
storage:
  mounts:
    - path: /mnt/a
    - path: /scratch
      mountpoint: false
      timeout_s: 1.5
      probe_dir: /scratch/.probe
      jitter: false
  jitter:
    sync: dsync
    threads: 4
    max_bytes: 1GiB
    read_file_size: 8MiB
    checkpoint_size: 128MiB
    checkpoint_estimate_gib: 700
    warn: {p50_ms: 2, tail_ratio: 50, write_mbps: 500}
    fail: {max_ms: 2000, read_mbps: 100}
)",
                                      "p.yaml");
  const auto& a = p.storage.mounts.at(0);
  CHECK(a.mountpoint);
  CHECK(a.timeout_s == 5);
  CHECK(a.probe_dir == "/mnt/a");
  CHECK(a.jitter);
  const auto& b = p.storage.mounts.at(1);
  CHECK_FALSE(b.mountpoint);
  CHECK(b.timeout_s == 1.5);
  CHECK(b.probe_dir == "/scratch/.probe");
  CHECK_FALSE(b.jitter);
  const auto& j = p.storage.jitter;
  CHECK(p.storage.jitter_declared);
  CHECK(j.sync == "dsync");
  CHECK(j.threads == 4);
  CHECK(j.max_bytes == (1ull << 30));
  CHECK(j.read_file_bytes == (8ull << 20));
  CHECK(j.checkpoint_bytes == (128ull << 20));
  CHECK(j.checkpoint_estimate_gib == 700);
  CHECK(j.warn.p50_ms == 2);
  CHECK(j.warn.p99_ms == 20);  // limits not given keep their defaults
  CHECK(j.warn.tail_ratio == 50);
  CHECK(j.warn.write_mbps == 500);
  CHECK(j.fail.max_ms == 2000);
  CHECK(j.fail.read_mbps == 100);
  CHECK(j.fail.p999_ms == 500);
  auto old = hn::formats::parse_profile("version: 1\nstorage:\n  mounts: [{path: /m}]\n", "o.yaml");
  CHECK_FALSE(old.storage.jitter_declared);
  CHECK(old.storage.jitter.duration_s == 3);
  CHECK(old.storage.jitter.workloads.size() == 4);
}

TEST_CASE("the embedded default profile parses") {
  auto p = hn::formats::default_profile();
  CHECK(p.source == "embedded:default");
  REQUIRE(p.planes.size() == 1);
  CHECK(p.planes[0].nic == "auto");
}

TEST_CASE("invalid profiles name file, line and field") {
  struct Case {
    const char* text;
    int line;
    const char* needle;
  };
  const Case cases[] = {
      {"version: 2\n", 1, "version: value 2 is out of range [1, 1]"},
      {"cluster: x\n", 1, "version: missing required field"},
      {"version: 1\nplanez: []\n", 2, "unknown key 'planez'"},
      {"version: 1\nplanes:\n  - {name: a, type: param, nic: eth0}\n", 3,
       "unknown plane type 'param'"},
      {"version: 1\nplanes:\n  - name: a\n    type: parameter\n    nic: eth0\n    mtu: big\n", 6,
       "planes[0].mtu: expected an integer"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, subnet: 10.0.0.1/24}\n", 3,
       "host bits"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter}\n", 3, "needs a nic or a subnet"},
      // A bare address is not read as a /32: the length is required.
      {"version: 1\nplanes:\n  - {name: a, type: parameter, subnet: 10.0.0.0}\n", 3,
       "planes[0].subnet: '10.0.0.0' has no prefix length"},
      {"version: 1\nplanes:\n  - name: a\n    type: parameter\n    subnets: [10.0.0.0/24, "
       "'fd10::']\n",
       5,
       "planes[0].subnets[1]: 'fd10::' has no prefix length: write the network with its length, "
       "e.g. fd10::/64"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e, vlan: 5000}\n", 3, "[1, 4094]"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e}\n  - {name: a, type: data, "
       "nic: f}\n",
       4, "used twice"},  // the second declaration is the error
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e, rdma: {gid_type: v3}}\n", 3,
       "unknown gid_type"},
      {"version: 1\nphysical: {accelerators: {vendor: intel, count: 1}}\n", 2, "unknown vendor"},
      {"version: 1\nstorage:\n  mounts:\n    - path: relative\n", 4, "absolute path"},
      {"version: 1\nstorage:\n  jitter: {block: 4Q}\n", 3, "invalid size '4Q'"},
      {"version: 1\nstorage:\n  jitter: {workloads: [sync_write, fly]}\n", 3,
       "unknown workload 'fly'"},
      {"version: 1\nstorage:\n  mounts:\n    - {path: /m, timeout_s: 0}\n", 4, "timeout_s"},
      {"version: 1\nstorage:\n  mounts:\n    - {path: /m, probe_dir: rel}\n", 4, "probe_dir"},
      {"version: 1\nstorage:\n  mounts:\n    - {path: /m, min_free_gib: -1}\n", 4, "negative"},
      {"version: 1\nstorage:\n  mounts:\n    - {path: /m, mountpoint: maybe}\n", 4, "mountpoint"},
      {"version: 1\nstorage:\n  jitter: {read_file_size: 1KiB}\n", 3, "at least one block"},
      {"version: 1\nstorage:\n  jitter: {warn: {p99: 5}}\n", 3, "unknown key 'p99'"},
      {"version: 1\nstorage:\n  jitter: {fail: {read_mbps: 0}}\n", 3, "must be positive"},
      {"version: 1\nplanes:\n  - {name: p, type: parameter, subnet: 10.0.0.0/24}\nnodes:\n"
       "  - {name: n0, addresses: {p: 10.1.0.1}}\n",
       5, "outside the subnet"},
      {"version: 1\nnodes:\n  - {name: n0, addresses: {nope: 10.1.0.1}}\n", 3, "not declared"},
      {"version: 1\ncomm: {library: nccl, pfc_priority: 9}\n", 2, "[0, 7]"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e, vlan: {id: 1, parnt: e}}\n", 3,
       "unknown key 'parnt'"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e, peers: [10.0.0.2, nope]}\n", 3,
       "planes[0].peers[1]: 'nope' is not an IP address"},
      {"version: 1\nplanes:\n  - name: a\n    type: parameter\n    nic: e\n    rdma: {mtu: 1000}\n",
       6, "RDMA MTU must be 256, 512, 1024, 2048 or 4096"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e}\nnodes:\n"
       "  - {name: n0, nics: {b: eth1}}\n",
       5, "nodes.n0.nics: plane 'b' is not declared"},
      {"version: 1\nplanes: [1, 2\n", 3, "malformed YAML"},  // the parser notices at EOF
      // Thresholds outside any sensible range (a sign slip, Kelvin, MiB).
      {"version: 1\nphysical: {min_memory_gib: -5}\n", 2,
       "physical.min_memory_gib: must be in [0, 1048576] GiB"},
      {"version: 1\nphysical: {max_temp_c: -300}\n", 2,
       "physical.max_temp_c: must be in (0, 150] degrees Celsius"},
      {"version: 1\nphysical: {max_temp_c: 363}\n", 2, "(0, 150]"},
      // A warn limit past its fail limit: the WARN band would be empty.
      {"version: 1\nstorage:\n  jitter:\n    warn: {p99_ms: 200}\n", 4,
       "storage.jitter.warn.p99_ms: warn.p99_ms (200) must be at most fail.p99_ms (100)"},
      {"version: 1\nstorage:\n  jitter:\n    warn: {max_ms: 10}\n    fail: {max_ms: 5}\n", 4,
       "warn.max_ms (10) must be at most fail.max_ms (5)"},
      {"version: 1\nstorage:\n  jitter:\n    fail: {p999_ms: 40}\n", 4,
       "storage.jitter.fail.p999_ms: warn.p999_ms (50) must be at most fail.p999_ms (40)"},
      {"version: 1\nstorage:\n  jitter:\n    warn: {write_mbps: 100}\n    fail: {write_mbps: "
       "500}\n",
       4, "warn.write_mbps (100) must be at least fail.write_mbps (500)"},
      // Every YAML input: a repeated key, a second document, non-decimal integers.
      {"version: 1\nphysical:\n  min_memory_gib: 1\n  min_memory_gib: 100000\n", 4,
       "physical.min_memory_gib: duplicate key 'min_memory_gib' (first at line 3)"},
      {"version: 1\n---\nversion: 1\nphysical: {min_memory_gib: 1}\n", 2, "second YAML document"},
      {"version: 1\nplanes:\n  - {name: a, type: parameter, nic: e, vlan: 0x10}\n", 3,
       "planes[0].vlan: expected an integer, got '0x10'"},
      {"", 0, "empty"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    InputError e = error_of(c.text);
    CHECK(e.file() == "p.yaml");
    CHECK(e.line() == c.line);
    CHECK_THAT(std::string(e.what()), Catch::Contains(c.needle));
  }
}

TEST_CASE("valid thresholds and decimal integers are read as written") {
  auto p = parse_profile(
      "version: 1\nplanes:\n  - {name: a, type: parameter, nic: e, vlan: 010}\n"
      "physical: {min_memory_gib: 0, max_temp_c: 150}\n"
      "storage:\n  jitter:\n    warn: {p99_ms: 100, read_mbps: 100}\n    fail: {read_mbps: 100}\n"
      "---\n",
      "p.yaml");
  CHECK(p.planes.at(0).vlan == 10);  // base 0 read 010 as 8
  CHECK(p.physical.min_memory_gib == 0);
  CHECK(p.physical.max_temp_c == 150);
  CHECK(p.storage.jitter.warn.p99_ms == 100);  // equal to fail is allowed
}

// The README shows a short profile; docs/profile.md is the full reference
// with the complete examples.
TEST_CASE("every profile example in README.md and docs/profile.md parses") {
  for (const std::string file : {"README.md", "docs/profile.md"}) {
    int profiles = 0;
    for (const auto& b : hn::test::fenced_blocks(HN_SOURCE_DIR "/" + file, "yaml")) {
      // Profiles start with `version: 1`; other formats (an operator matrix has
      // a top-level backend:, a Kubernetes snippet starts otherwise) are
      // checked by their own parsers' tests.
      if (b.text.rfind("version: 1\n", 0) != 0 || b.text.find("\nbackend:") != std::string::npos)
        continue;
      INFO(file << " line " << b.line);
      CHECK_NOTHROW(parse_profile(b.text, file));
      ++profiles;
    }
    INFO(file);
    CHECK(profiles >= (file == "README.md" ? 1 : 2));
  }
}

TEST_CASE("the profile reference's planes example parses, with every plane key") {
  std::ifstream in(std::string(HN_SOURCE_DIR) + "/docs/profile.md");
  std::string line, yaml;
  bool section = false, block = false;
  while (std::getline(in, line)) {
    if (line == "## Planes")
      section = true;
    else if (section && line == "```yaml")
      block = true;
    else if (block && line == "```")
      break;
    else if (block)
      yaml += line + "\n";
  }
  REQUIRE_FALSE(yaml.empty());
  auto p = hn::formats::parse_profile(yaml, "docs/profile.md");
  REQUIRE(p.planes.size() == 3);
  const auto& param = p.planes[0];
  CHECK(param.vlan == 100);
  CHECK(param.vlan_parent == "ens1f0");
  REQUIRE(param.rdma.has_value());
  CHECK(param.rdma->gid_index == 3);
  CHECK(p.find_node("gpu02")->nics.at("stor") == "ens3f1");
  CHECK(p.planes[2].peers == std::vector<std::string>{"10.30.0.254"});
  CHECK(p.comm.library == "nccl");
}

TEST_CASE("profile: overlapping plane subnets and an unversioned gid_type are errors") {
  auto load = [](const std::string& text) { return hn::formats::parse_profile(text, "p.yaml"); };
  try {
    load(
        "version: 1\nplanes:\n  - {name: a, type: parameter, subnet: 10.10.0.0/16}\n"
        "  - {name: b, type: storage, subnet: 10.10.4.0/24}\n");
    FAIL("accepted");
  } catch (const hn::compat::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("p.yaml:4") &&
                             Catch::Contains("10.10.4.0/24 of plane 'b' overlaps subnet "
                                             "10.10.0.0/16 of plane 'a' (line 3)"));
  }
  CHECK_NOTHROW(
      load("version: 1\nplanes:\n  - {name: a, type: parameter, subnet: 10.10.0.0/24}\n"
           "  - {name: b, type: storage, subnet: 10.10.1.0/24}\n"));
  try {
    load(
        "version: 1\nplanes:\n  - name: a\n    type: parameter\n    subnet: 10.10.0.0/24\n"
        "    rdma: {gid_type: roce}\n");
    FAIL("accepted");
  } catch (const hn::compat::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("p.yaml:6") && Catch::Contains("RoCEv2 or RoCEv1"));
  }
}
