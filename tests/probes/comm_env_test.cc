#include "probes/comm_env.h"

#include <catch2/catch.hpp>

using namespace hn;

TEST_CASE("comm env: only the known keys, the env file wins and names file:line") {
  const char* envp[] = {"PATH=/bin", "NCCL_SOCKET_IFNAME=eth0", "HCCL_IF_IP=10.0.0.1",
                        "GLOO_SOCKET_IFNAME", nullptr};
  auto file =
      compat::parse_env_text("# job\nexport NCCL_SOCKET_IFNAME==eth1\nOTHER=1\n", "job.env");
  auto env = probes::collect_comm_env(envp, &file);
  REQUIRE(env.size() == 2);
  CHECK(env.at("NCCL_SOCKET_IFNAME") == probes::EnvSetting{"=eth1", "job.env:2"});
  CHECK(env.at("HCCL_IF_IP") == probes::EnvSetting{"10.0.0.1", "environment"});
  CHECK(probes::collect_comm_env(nullptr, nullptr).empty());
  CHECK(probes::comm_env_keys().size() == 9);
}
