// `hnprecheck certify` started by the engines users already run: a real Open
// MPI `mpirun -np 3` (label mpi; certify_slurm_test.cc is srun). Ranks come
// from the launcher's variables; rank 0 writes the certificate.

#include <catch2/catch.hpp>

#include <unistd.h>

#include "reports/certificate.h"
#include "tests/support/json_schema.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

namespace {

const char* kToken = "HN_TOKEN=6a0c4d1e9a7b3c2d8e6f4a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d";

std::string rendezvous() {
  return hn::test::free_loopback_rendezvous();
}

std::vector<std::string> certify_args(const std::string& certificate) {
  return {HN_BINARY,    "certify",      "--sizes",    "64K",           "--iters",  "2",
          "--no-color", "--rendezvous", rendezvous(), "--certificate", certificate};
}

}  // namespace

TEST_CASE("certify under mpirun -np 3", "[mpi]") {
  std::string mpirun;
  for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"})
    if (access(p, X_OK) == 0) mpirun = p;
  if (mpirun.empty())
    hn::test::skip("mpirun not installed (openmpi-bin; scripts/install-deps.sh --test)");
  hn::test::TempDir dir;
  std::vector<std::string> argv = {mpirun, "-np", "3"};
  for (auto& a : certify_args(dir.path() + "/c.json")) argv.push_back(a);
  auto r = hn::test::run_process(argv, 180,
                                 {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                  "OMPI_MCA_rmaps_base_oversubscribe=1", kToken});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Every rank on one host: partial (no link between hosts was tested).
  CHECK_THAT(r.out, Catch::Contains("verdict: partial (exit 0): 1 host(s), 3 rank(s)"));
  const auto doc = nlohmann::json::parse(hn::test::read_file(dir.path() + "/c.json"));
  for (const auto& e : hn::test::json_schema_errors(hn::test::certificate_schema(), doc))
    FAIL_CHECK(e);
  auto c = hn::reports::certificate_from_json(doc, "c");
  CHECK(c.launcher == "mpirun");
  CHECK(c.world == 3);
}
