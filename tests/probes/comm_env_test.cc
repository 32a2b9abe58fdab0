#include "probes/comm_env.h"

#include <catch2/catch.hpp>

#include "compat/translate/env_input.h"

using namespace hn;
namespace tr = hn::compat::translate;

TEST_CASE("comm env: only the known keys, the job's file wins and names file:line") {
  const char* envp[] = {"PATH=/bin", "NCCL_SOCKET_IFNAME=eth0", "HCCL_IF_IP=10.0.0.1",
                        "GLOO_SOCKET_IFNAME", nullptr};
  auto file = tr::parse_env_input_full("# job\nexport NCCL_SOCKET_IFNAME==eth1\nOTHER=1\n",
                                       "job.env", tr::InputFormat::kAuto);
  auto env = probes::collect_comm_env(envp, &file);
  REQUIRE(env.size() == 2);
  CHECK(env.at("NCCL_SOCKET_IFNAME") == probes::EnvSetting{"=eth1", "job.env:2", ""});
  CHECK(env.at("HCCL_IF_IP") == probes::EnvSetting{"10.0.0.1", "environment", ""});
  CHECK(probes::collect_comm_env(nullptr, nullptr).empty());
  CHECK(probes::comm_env_keys().size() == 9);
}

TEST_CASE("comm env: a launch script is read like translate reads it") {
  // The forms of real launch files (tests/corpus): mpirun -x, srun --export,
  // a branch, a run-time value.
  auto job = tr::parse_env_input_full(
      "#!/bin/bash\n"
      "#SBATCH --export=ALL,GLOO_SOCKET_IFNAME=ens1f0\n"
      "if [ \"$CLUSTER\" = a ]; then export HCCL_SOCKET_IFNAME=eth1; else export "
      "HCCL_SOCKET_IFNAME=eth2; fi\n"
      "export OMPI_MCA_btl_tcp_if_include=$(ip -o route get 1 | cut -d' ' -f5)\n"
      "mpirun -x NCCL_SOCKET_IFNAME=ens1f0 -x NCCL_IB_HCA=mlx5_0 ./train\n",
      "train.sbatch", tr::InputFormat::kAuto);
  auto env = probes::collect_comm_env(nullptr, &job);
  CHECK(env.at("GLOO_SOCKET_IFNAME").value == "ens1f0");
  CHECK(env.at("GLOO_SOCKET_IFNAME").origin == "train.sbatch:2 (#SBATCH --export)");
  CHECK(env.at("NCCL_SOCKET_IFNAME").value == "ens1f0");
  CHECK(env.at("NCCL_SOCKET_IFNAME").origin == "train.sbatch:5 (mpirun -x)");
  CHECK(env.at("NCCL_IB_HCA").uncertain.empty());
  CHECK_THAT(env.at("HCCL_SOCKET_IFNAME").uncertain,
             Catch::Contains("eth1 (train.sbatch:3, if at line 3), eth2 (train.sbatch:3"));
  CHECK_THAT(env.at("OMPI_MCA_btl_tcp_if_include").uncertain, Catch::Contains("run time"));
}
