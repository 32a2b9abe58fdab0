// `hnprecheck certify` as a Slurm job step: a real `srun -N2` (label slurm,
// tests/support/slurm_cluster.h: two virtual nodes on this host). Ranks come
// from SLURM_PROCID & co.; rank 0 writes the certificate.

#include <catch2/catch.hpp>

#include "reports/certificate.h"
#include "tests/support/json_schema.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/slurm_cluster.h"
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

TEST_CASE("certify under srun -N2", "[slurm]") {
  if (std::string why = hn::test::SlurmCluster::unavailable_reason(); !why.empty())
    hn::test::skip(why);
  hn::test::SlurmCluster cluster;
  // The step's directory must be readable by slurmstepd: the cluster's own.
  const std::string cert = cluster.dir() + "/certificate.json";
  std::vector<std::string> argv = {"srun", "-N2", "-n2"};
  for (auto& a : certify_args(cert)) argv.push_back(a);
  auto r = cluster.run(argv, 120, {kToken});
  INFO(r.out << r.err << cluster.logs());
  REQUIRE(r.exit_code == 0);
  // Both Slurm nodes are this machine: partial (no link between hosts).
  CHECK_THAT(r.out, Catch::Contains("verdict: partial (exit 0)"));
  const auto doc = nlohmann::json::parse(hn::test::read_file(cert));
  for (const auto& e : hn::test::json_schema_errors(hn::test::certificate_schema(), doc))
    FAIL_CHECK(e);
  auto c = hn::reports::certificate_from_json(doc, "c");
  CHECK(c.launcher == "slurm");
  CHECK(c.world == 2);
}
