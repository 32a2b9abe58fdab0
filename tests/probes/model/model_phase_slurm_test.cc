// The model step as a Slurm job step on a real Slurm (slurmctld and two
// slurmd on this host, tests/support/slurm_cluster.h): srun -N2 -n4, ranks
// from SLURM_PROCID & co., over TCP between the two virtual nodes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/probes/model/phase_harness.h"
#include "tests/support/skip.h"
#include "tests/support/slurm_cluster.h"
#include "tests/support/temp_dir.h"

TEST_CASE("srun -N2 -n4 model_step --layout tp=2,pp=2 trains and passes every check") {
  if (std::string why = hn::test::SlurmCluster::unavailable_reason(); !why.empty())
    hn::test::skip(why);
  hn::test::SlurmCluster c;
  const std::string json = c.dir() + "/model.json";
  auto r = c.run(
      {"srun", "-N2", "-n4", hn::test::model_step_binary(), "--layout", "tp=2,pp=2", "--steps", "6",
       "--transport", "tcp", "--checkpoint-dir", c.dir() + "/ckpt", "--rendezvous",
       "127.0.0.1:" + std::to_string(hn::test::free_tcp_port()), "--json", json},
      120, {"HN_TOKEN=5f0c4d1e9a7b3c2d8e6f4a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d"});
  INFO(r.out << r.err << c.logs());
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(hn::test::read_file(json));
  CHECK(j["world"] == 4);
  CHECK(j["transport"] == "tcp");
  for (const auto& f : j["findings"]) CHECK(f["status"] == "PASS");
  CHECK(j["losses"].size() == 6);
}
