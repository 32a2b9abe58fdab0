// VLAN and RDMA plane checks (which this kernel cannot create) through
// snapshot fixtures in the live reader's format, driven through the binary:
// `node --snapshot` and `consistency`. Also the CLI errors of --env and
// `consistency`.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using nlohmann::json;

namespace {

const std::string kSnaps = std::string(HN_FIXTURE_DIR) + "/snapshots/";
const std::string kProfiles = std::string(HN_FIXTURE_DIR) + "/profiles/";

hn::test::ProcessResult cli(std::vector<std::string> args, std::vector<std::string> env = {}) {
  return hn::test::run_hnprecheck(std::move(args), 60, env);
}

struct Report {
  int exit_code;
  json doc;
  json one(const std::string& code, const std::string& entity) const {
    std::vector<json> hits;
    for (const auto& f : doc["findings"])
      if (f["code"] == code && f["entity"] == entity) hits.push_back(f);
    INFO(code << " " << entity << " in " << doc.dump(1));
    REQUIRE(hits.size() == 1);
    return hits[0];
  }
};

Report node(const std::string& snapshot, const std::string& profile,
            std::vector<std::string> env = {}) {
  auto r = cli(
      {"node", "--snapshot", kSnaps + snapshot, "--profile", kProfiles + profile, "--json", "-"},
      std::move(env));
  INFO(r.err);
  return {r.exit_code, json::parse(r.out)};
}

}  // namespace

TEST_CASE("snapshot: a VLAN link with the wrong id") {
  Report r = node("netplane/vlan-wrong-id.yaml", "vlan-planes.yaml");
  json v = r.one("NET-VLAN", "eth1.100");
  CHECK(v["status"] == "FAIL");
  CHECK(v["evidence"]["vlan_id"] == "101");
  CHECK(v["evidence"]["expected_id"] == "100");
  CHECK(v["evidence"]["parent"] == "eth1");
  CHECK(r.exit_code == 1);
  // The other fixture's eth1.100 is VLAN 100 on eth1 as the profile says.
  Report ok = node("vlan-node.yaml", "vlan-planes.yaml");
  CHECK(ok.one("NET-VLAN", "eth1.100")["status"] == "PASS");
}

TEST_CASE("snapshot: a correct RoCE node passes every L6 and RDMA check") {
  Report r = node("netplane/roce-a.yaml", "roce-cluster.yaml");
  for (const auto& f : r.doc["findings"]) {
    INFO(f.dump());
    CHECK(f["status"] == "PASS");
  }
  CHECK(r.one("NET-RDMA-GID", "mlx5_0/1")["evidence"]["index"] == "3");
  CHECK(r.one("NET-RDMA-NETDEV", "mlx5_0/1")["evidence"]["netdev"] == "ens1f0");
  CHECK(r.exit_code == 0);
}

TEST_CASE("snapshot: a GID without the plane address, and a GID at another index") {
  Report c = node("netplane/roce-c.yaml", "roce-cluster.yaml");
  json gid = c.one("NET-RDMA-GID", "mlx5_0/1");
  CHECK(gid["status"] == "FAIL");
  CHECK(gid["evidence"]["address"] == "10.10.0.3");
  CHECK(gid["evidence"]["plane_nic"] == "ens1f0");
  CHECK(c.exit_code == 1);
  Report b = node("netplane/roce-b.yaml", "roce-cluster.yaml");
  json index = b.one("NET-RDMA-GID-INDEX", "mlx5_0/1");
  CHECK(index["status"] == "FAIL");
  CHECK(index["evidence"]["index"] == "5");
  CHECK(index["evidence"]["expected"] == "3");
}

TEST_CASE("snapshot: NCCL_IB_HCA resolved against the node's RDMA ports") {
  Report r = node("netplane/roce-a.yaml", "roce-cluster.yaml", {"NCCL_IB_HCA=mlx5"});
  json f = r.one("NET-COMM-IB-HCA", "NCCL_IB_HCA");
  CHECK(f["status"] == "FAIL");
  CHECK(f["evidence"]["selected"] == "mlx5_0:1, mlx5_1:1");  // mlx5_1 is the storage plane's
  CHECK(f["evidence"]["suggestion"] == "=mlx5_0:1");
  r = node("netplane/roce-a.yaml", "roce-cluster.yaml", {"NCCL_IB_HCA==mlx5_0:1"});
  CHECK(r.one("NET-COMM-IB-HCA", "NCCL_IB_HCA")["status"] == "PASS");
}

TEST_CASE("consistency: two nodes whose GID indexes differ") {
  auto r = cli({"consistency", "--profile", kProfiles + "roce-cluster.yaml",
                kSnaps + "netplane/roce-a.yaml", kSnaps + "netplane/roce-b.yaml", "--json", "-"});
  CHECK(r.exit_code == 1);
  json doc = json::parse(r.out);
  CHECK(doc["command"] == "consistency");
  int fails = 0;
  for (const auto& f : doc["findings"]) {
    if (f["status"] != "FAIL") continue;
    ++fails;
    CHECK(f["code"] == "NET-XNODE-GID-INDEX");
    CHECK(f["entity"] == "plane param");
    CHECK(f["evidence"]["odd"] == "roce-b");  // the profile expects index 3
    CHECK(f["evidence"]["node roce-a"] == "3");
    CHECK(f["evidence"]["node roce-b"] == "5");
  }
  CHECK(fails == 1);
  // roce-c is declared too but was not given: it was not compared.
  int warned = 0;
  for (const auto& f : doc["findings"])
    if (f["code"] == "NET-XNODE-COVERAGE") {
      CHECK(f["status"] == "WARN");
      CHECK(f["evidence"]["missing"] == "roce-c");
      ++warned;
    }
  CHECK(warned == 1);
}

TEST_CASE("consistency: a snapshot of a host the profile does not declare is exit 2") {
  hn::test::TempDir dir;
  std::ifstream in(kSnaps + "netplane/roce-b.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto at = text.find("hostname: roce-b\n");
  REQUIRE(at != std::string::npos);
  text.replace(at, 16, "hostname: laptop");
  std::string stray = dir.write("laptop.yaml", text);
  auto r = cli({"consistency", "--profile", kProfiles + "roce-cluster.yaml",
                kSnaps + "netplane/roce-a.yaml", stray});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("laptop.yaml") && Catch::Contains("'laptop'") &&
                        Catch::Contains("roce-a, roce-b, roce-c"));
  // All three declared nodes: consistent apart from roce-b's GID index, no WARN.
  r = cli({"consistency", "--profile", kProfiles + "roce-cluster.yaml",
           kSnaps + "netplane/roce-a.yaml", kSnaps + "netplane/roce-b.yaml",
           kSnaps + "netplane/roce-c.yaml", "--json", "-"});
  json doc = json::parse(r.out);
  for (const auto& f : doc["findings"])
    if (f["code"] == "NET-XNODE-COVERAGE") CHECK(f["status"] == "PASS");
}

TEST_CASE("consistency: bad usage is exit 2 with the reason") {
  auto one_file = cli({"consistency", "--profile", kProfiles + "roce-cluster.yaml",
                       kSnaps + "netplane/roce-a.yaml"});
  CHECK(one_file.exit_code == 2);
  CHECK_THAT(one_file.err, Catch::Contains("at least two snapshot files"));
  auto no_profile =
      cli({"consistency", kSnaps + "netplane/roce-a.yaml", kSnaps + "netplane/roce-b.yaml"});
  CHECK(no_profile.exit_code == 2);
  CHECK_THAT(no_profile.err, Catch::Contains("--profile"));
  auto twice = cli({"consistency", "--profile", kProfiles + "roce-cluster.yaml",
                    kSnaps + "netplane/roce-a.yaml", kSnaps + "netplane/roce-a.yaml"});
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.err, Catch::Contains("one snapshot per node"));
}

TEST_CASE("node --env: a malformed env file is exit 2 naming file:line") {
  hn::test::TempDir dir;
  std::string env = dir.write("job.env", "export NCCL_SOCKET_IFNAME==eth1\nHCCL_IF_IP 10.0.0.1\n");
  auto r = cli({"node", "--snapshot", kSnaps + "netplane/roce-a.yaml", "--profile",
                kProfiles + "roce-cluster.yaml", "--env", env});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(env + ":2:") && Catch::Contains("HCCL_IF_IP"));
  r = cli({"node", "--env", dir.path() + "/missing.env"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("missing.env"));
}

TEST_CASE("node --env: a launch script is read as translate reads it") {
  hn::test::TempDir dir;
  // mpirun -x on a launch line (as in the corpus's coreweave MPIJobs): the
  // NIC NCCL would use is judged; a branch is reported, not judged.
  std::string job = dir.write("train.sbatch",
                              "#!/bin/bash\n#SBATCH -N 2\nexport NCCL_DEBUG=INFO\n"
                              "if [ -n \"$A\" ]; then export HCCL_SOCKET_IFNAME=ens1f0; fi\n"
                              "mpirun -np 16 -x NCCL_SOCKET_IFNAME=eth0 ./train\n");
  auto r = cli({"node", "--snapshot", kSnaps + "netplane/roce-a.yaml", "--profile",
                kProfiles + "roce-cluster.yaml", "--env", job, "--json", "-"});
  CHECK(r.exit_code == 1);
  json doc = json::parse(r.out);
  bool ifname = false, uncertain = false;
  for (const auto& f : doc["findings"]) {
    if (f["code"] == "NET-COMM-IFNAME" && f["entity"] == "NCCL_SOCKET_IFNAME") {
      ifname = f["status"] == "FAIL";
      CHECK_THAT(f["remediation"].get<std::string>(),
                 Catch::Contains("train.sbatch:5 (mpirun -x)"));
    }
    if (f["code"] == "NET-COMM-ENV-UNCERTAIN" && f["entity"] == "HCCL_SOCKET_IFNAME")
      uncertain = f["status"] == "WARN";
  }
  CHECK(ifname);
  CHECK(uncertain);
}

TEST_CASE("diff: --no-color is accepted like every other command") {
  auto r =
      cli({"diff", kSnaps + "netplane/roce-a.yaml", kSnaps + "netplane/roce-a.yaml", "--no-color"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("0 difference(s)"));
}
