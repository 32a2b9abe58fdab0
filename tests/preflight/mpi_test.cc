// hnprecheck under a real Open MPI mpirun: ranks come from OMPI_COMM_WORLD_*,
// collectives run between the processes mpirun started, and a rank with the
// wrong job token is refused on both sides instead of joining.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace {

std::string mpirun_path() {
  for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

const std::vector<std::string> kEnv = {
    "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
    "OMPI_MCA_rmaps_base_oversubscribe=1", "HN_TOKEN=0123456789abcdef0123456789abcdef"};

std::string rendezvous() {
  return hn::test::free_loopback_rendezvous();
}

std::string require_mpirun() {
  std::string m = mpirun_path();
  if (m.empty())
    hn::test::skip("mpirun not installed (openmpi-bin; scripts/install-deps.sh --test)");
  return m;
}

}  // namespace

TEST_CASE("mpi: mpirun -np N runs verified collectives between its ranks", "[mpi]") {
  const std::string mpirun = require_mpirun();
  for (int n : {2, 3}) {
    for (const char* op : {"allreduce", "alltoall"}) {
      CAPTURE(n, op);
      hn::test::TempDir dir;
      const std::string json = dir.path() + "/bench.json";
      auto r = hn::test::run_process({mpirun,
                                      "-np",
                                      std::to_string(n),
                                      HN_BINARY,
                                      "bench",
                                      "--op",
                                      op,
                                      "-b",
                                      "8",
                                      "-e",
                                      "1M",
                                      "-f",
                                      "64",
                                      "--iters",
                                      "3",
                                      "--warmup",
                                      "1",
                                      "--timeout",
                                      "20",
                                      "--rendezvous",
                                      rendezvous(),
                                      "--json",
                                      json},
                                     90, kEnv);
      INFO(r.out << r.err);
      REQUIRE(r.exit_code == 0);
      std::ifstream in(json);
      REQUIRE(in);
      auto j = nlohmann::json::parse(in);
      CHECK(j.at("ranks") == n);
      CHECK(j.at("wrong_total") == 0);
      CHECK(j.at("rows").size() == 3);  // 8 B, 512 B, 32 KiB
    }
  }
}

TEST_CASE("mpi: a rank with another job's token is refused and named", "[mpi]") {
  const std::string mpirun = require_mpirun();
  const std::string rv = rendezvous();
  // MPMD: rank 1 runs with a different HN_TOKEN.
  const std::vector<std::string> bench = {HN_BINARY,   "bench", "-e",           "64",
                                          "--timeout", "10",    "--rendezvous", rv};
  std::vector<std::string> argv = {mpirun, "-np", "1"};
  argv.insert(argv.end(), bench.begin(), bench.end());
  for (const char* a : {":", "-np", "1", "env", "HN_TOKEN=fedcba9876543210fedcba9876543210"})
    argv.push_back(a);
  argv.insert(argv.end(), bench.begin(), bench.end());
  auto r = hn::test::run_process(argv, 60, kEnv);
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != -1);  // ended by itself, well within the test's 60 s
  CHECK_THAT(r.err, Catch::Contains("rank 0") && Catch::Contains("rank 1"));
  CHECK_THAT(r.err, Catch::Contains("token"));
}

TEST_CASE("mpi: one hnprecheck node per node under mpirun", "[mpi]") {
  const std::string mpirun = require_mpirun();
  auto r = hn::test::run_process(
      {mpirun, "--map-by", "ppr:1:node", HN_BINARY, "node", "--no-color"}, 60, kEnv);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("checks:"));
}
