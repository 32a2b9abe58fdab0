// deploy/slurm/slurm-healthcheck under a real slurmd (tests/support/
// slurm_cluster.h): Slurm ignores a HealthCheckProgram's exit code, so the
// node is drained only if the wrapper drains it itself; here a failing check
// must leave the node DRAIN with the wrapper's "hnprecheck: FAIL ..." reason.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "tests/deploy/wrapper_inputs.h"
#include "tests/support/skip.h"
#include "tests/support/slurm_cluster.h"
#include "tests/support/temp_dir.h"

using hn::test::TempDir;

namespace {
using namespace hn::test::deploy;
}  // namespace

TEST_CASE("slurm wrappers: a real slurmd runs the health check and the node is drained") {
  if (std::string why = hn::test::SlurmCluster::unavailable_reason(); !why.empty())
    hn::test::skip(why);
  TempDir t;
  const std::string conf =
      t.write("hnprecheck.conf", "HNPRECHECK_BIN=" + std::string(HN_BINARY) +
                                     "\nHNPRECHECK_PROFILE=" + kFailingProfile +
                                     "\nHNPRECHECK_ARGS='--snapshot " + kFailingSnapshot +
                                     "'\nHNPRECHECK_STATE_DIR=" + t.path() + "/state\n");
  // slurmd runs it as root with almost no environment: this script points
  // the wrapper at the test's settings and, once the cluster is up, at its
  // slurm.conf (the run at slurmd's start, before that, drains nothing).
  const std::string hc =
      t.write("hc.sh", "#!/bin/sh\n[ -r " + t.path() + "/cluster.env ] && . " + t.path() +
                           "/cluster.env\nexport SLURM_CONF\n"
                           "export HNPRECHECK_CONFIG=" +
                           conf + "\nexec " + kSlurmDir + "/slurm-healthcheck\n");
  ::chmod(hc.c_str(), 0755);
  hn::test::SlurmClusterOptions o;
  o.nodes = 1;
  o.extra_conf = {"HealthCheckProgram=" + hc, "HealthCheckInterval=2"};
  hn::test::SlurmCluster c(o);
  t.write("cluster.env", "SLURM_CONF=" + c.conf_path() + "\n");
  std::string state, reason;
  for (int i = 0; i < 120; ++i) {
    state = c.node_state("v1");
    reason = c.node_reason("v1");
    if (state.find("DRAIN") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  INFO(state << " / " << reason << "\n" << c.logs());
  CHECK(state.find("DRAIN") != std::string::npos);
  CHECK(reason.rfind("hnprecheck: FAIL ", 0) == 0);
}
