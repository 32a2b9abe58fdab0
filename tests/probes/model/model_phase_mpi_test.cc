// The model step under a real Open MPI mpirun: ranks from OMPI_COMM_WORLD_*,
// the layout's groups split from them, every check of the phase passing
// (equivalence with one rank included). Skipped without mpirun.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <set>

#include "tests/probes/model/phase_harness.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/slurm_cluster.h"
#include "tests/support/temp_dir.h"

TEST_CASE("mpi: mpirun -np 4 model_step --layout tp=2,dp=2 trains and passes every check") {
  std::string mpirun;
  for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"})
    if (access(p, X_OK) == 0) mpirun = p;
  if (mpirun.empty())
    hn::test::skip("mpirun not installed (openmpi-bin; scripts/install-deps.sh --test)");
  hn::test::TempDir dir;
  const std::string json = dir.path() + "/model.json";
  auto r = hn::test::run_process(
      {mpirun, "-np", "4", hn::test::model_step_binary(), "--layout", "tp=2,dp=2", "--steps", "6",
       "--checkpoint-dir", dir.path(), "--rendezvous",
       "127.0.0.1:" + std::to_string(hn::test::free_tcp_port()), "--json", json},
      120,
      {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
       "OMPI_MCA_rmaps_base_oversubscribe=1", "HN_TOKEN=0123456789abcdef0123456789abcdef"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(hn::test::read_file(json));
  CHECK(j["world"] == 4);
  CHECK(j["layout"] == "tp=2,pp=1,dp=2");
  std::set<std::string> codes;
  for (const auto& f : j["findings"]) {
    CHECK(f["status"] == "PASS");
    codes.insert(f["code"].get<std::string>());
  }
  for (const char* c : {"MODEL-EQUIVALENCE", "MODEL-RESUME", "MODEL-REPLICA", "MODEL-LOSS"})
    CHECK(codes.count(c));
  CHECK_THAT(r.out, Catch::Contains("step time, tp=2,pp=1,dp=2 (4 ranks"));
}
