// Concern 4: the plane of each traffic class after translation, ports, pins.
#include <catch2/catch.hpp>

#include "compat/text_file.h"
#include "migrate/concerns.h"
#include "tests/migrate/job_fixture.h"

using namespace hn::migrate;
using hn::reports::Status;
using hn::reports::Verdict;

namespace {
Concern network(const Job& job) {
  return check_network(job, translate_job(job));
}
}  // namespace

TEST_CASE("network: collectives and storage on their planes, a run-time rendezvous not checked") {
  hn::test::JobFixture fx;
  Concern c = network(fx.resolve());
  // MASTER_ADDR=$(scontrol ...) is only known at run time: not "ready".
  CHECK(c.verdict() == Verdict::kNotChecked);
  CHECK(c.unchecked() == "rendezvous");
  CHECK(hn::test::codes(c) ==
        std::vector<std::string>{"MIG-NET-TRAFFIC PASS collectives",
                                 "MIG-NET-TRAFFIC SKIP rendezvous", "MIG-NET-TRAFFIC PASS storage",
                                 "COMM-PARAM-PORTS PASS ports-outside-ephemeral-range"});
  CHECK(c.summary() == "collectives on param0 (parameter); storage on stor (storage)");
}

TEST_CASE("network: HCCL pinned to the management NIC fails, naming the line") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_SOCKET_IFNAME==ens1f0", "export HCCL_SOCKET_IFNAME==eth0");
  Concern c = network(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-NET-PINNED");
  CHECK(f.status == Status::kFail);
  CHECK(f.message == "HCCL_SOCKET_IFNAME==eth0 (" + fx.dir.path() +
                         "/train.sbatch:16) pins collectives traffic to the management plane mgmt");
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("network: HCCL_IF_IP in the management subnet is a pin too") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_SOCKET_IFNAME==ens1f0", "export HCCL_IF_IP=10.30.0.1");
  Concern c = network(fx.resolve());
  CHECK(hn::test::finding(c, "MIG-NET-PINNED").evidence.at("plane") == "mgmt");
}

TEST_CASE("network: collectives left to HCCL's own choice are a warning") {
  hn::test::JobFixture fx;
  fx.edit("export HCCL_SOCKET_IFNAME==ens1f0\n", "");
  Concern c = network(fx.resolve());
  const auto& f = hn::test::finding(c, "MIG-NET-TRAFFIC");
  CHECK(f.entity == "collectives");
  CHECK(f.status == Status::kWarn);
  CHECK(f.remediation ==
        "Pin the collectives to the parameter plane param0: HCCL_SOCKET_IFNAME==ens1f0.");
}

TEST_CASE("network: HCCL's ports in the ephemeral range, not reserved: needs changes") {
  hn::test::JobFixture fx;
  fx.target_extra = "reserved_ports = \"40000-40001\"\n";
  Concern c = network(fx.resolve());
  CHECK(hn::test::finding(c, "COMM-PARAM-PORTS").status == Status::kWarn);
  CHECK(c.verdict() == Verdict::kNeedsChanges);
}

TEST_CASE("network: storage served over the parameter plane, rendezvous on a business plane") {
  hn::test::JobFixture fx;
  std::string profile = hn::compat::read_text_file(fx.profile);
  auto at = profile.find("10.20.0.10:/export/train");
  profile.replace(at, 10, "10.10.0.99");
  profile.replace(profile.find("planes:\n"), 8,
                  "planes:\n  - {name: web, type: business, subnet: 192.168.0.0/24, nic: eth9}\n");
  fx.profile = fx.write("cluster.yaml", profile);
  fx.edit("export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)",
          "export MASTER_ADDR=192.168.0.7");
  Concern c = network(fx.resolve());
  const auto& pinned = hn::test::finding(c, "MIG-NET-PINNED");
  CHECK(pinned.entity == "MASTER_ADDR");
  CHECK(pinned.evidence.at("class") == "rendezvous");
  bool storage_warned = false;
  for (const auto& i : c.items())
    if (i.finding.entity == "storage") {
      CHECK(i.finding.status == Status::kWarn);
      CHECK(i.finding.evidence.at("plane") == "param0 (parameter)");
      storage_warned = true;
    }
  CHECK(storage_warned);
}

TEST_CASE("network: the rendezvous host passed to torchrun is read, not reported missing") {
  // MASTER_ADDR as a plain shell variable, passed as torchrun's option.
  hn::test::JobFixture fx;
  fx.edit("export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)",
          "MASTER_ADDR=10.30.0.1");
  fx.edit("srun --kill-on-bad-exit=1 python -u pretrain_gpt.py",
          "srun --kill-on-bad-exit=1 torchrun --nproc-per-node 8 --master-addr $MASTER_ADDR "
          "pretrain_gpt.py");
  Concern c = network(fx.resolve());
  bool seen = false;
  for (const auto& i : c.items())
    if (i.finding.entity == "rendezvous") {
      seen = true;
      CHECK(i.finding.status == Status::kPass);
      CHECK_THAT(i.finding.message, Catch::Contains("torchrun --master-addr 10.30.0.1"));
    }
  CHECK(seen);
  // --rdzv-endpoint host:port names it too.
  hn::test::JobFixture rdzv;
  rdzv.edit("export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)",
            "");
  rdzv.edit("srun --kill-on-bad-exit=1 python -u pretrain_gpt.py",
            "srun --kill-on-bad-exit=1 torchrun --rdzv-endpoint 10.30.0.2:29500 pretrain_gpt.py");
  Concern r = network(rdzv.resolve());
  for (const auto& i : r.items())
    if (i.finding.entity == "rendezvous") CHECK(i.finding.status == Status::kPass);
}
