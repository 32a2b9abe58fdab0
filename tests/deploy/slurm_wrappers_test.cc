// deploy/slurm: the Prolog and the HealthCheckProgram wrappers run the real
// binary on fixture snapshots (and, for the passing case, on this machine
// with the embedded profile). Slurm ignores a HealthCheckProgram's exit code,
// so the wrapper must drain the node itself: a recording `scontrol`
// (HNPRECHECK_SCONTROL) shows the exact call, and the slurm-labelled test
// shows a real slurmd running it and the node drained with the reason.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "tests/deploy/wrapper_inputs.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using hn::test::ProcessResult;
using hn::test::read_file;
using hn::test::run_process;
using hn::test::TempDir;

namespace {

using namespace hn::test::deploy;

struct Wrapper {
  TempDir t;
  std::string log() const {
    return fs_exists(t.path() + "/scontrol.log") ? read_file(t.path() + "/scontrol.log") : "";
  }
  static bool fs_exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }
  // Runs deploy/slurm/<name> as slurmd does: no PATH, only what it sets.
  ProcessResult run(const std::string& name, std::vector<std::string> env) const {
    const std::string scontrol =
        t.write("scontrol", "#!/bin/sh\necho \"$*\" >> " + t.path() +
                                "/scontrol.log\n"
                                "[ \"$1\" = show ] && printf 'NodeName=n1 "
                                "Arch=x86_64\\n   Reason=%s\\n' \"$FAKE_REASON\"\n"
                                "exit 0\n");
    ::chmod(scontrol.c_str(), 0755);
    std::vector<std::string> argv = {"/usr/bin/env",
                                     "-i",
                                     "HNPRECHECK_BIN=" + std::string(HN_BINARY),
                                     "HNPRECHECK_CONFIG=" + t.path() + "/none",
                                     "HNPRECHECK_STATE_DIR=" + t.path() + "/state",
                                     "HNPRECHECK_SCONTROL=" + scontrol,
                                     "SLURMD_NODENAME=n1"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(kSlurmDir + "/" + name);
    return run_process(argv, 120);
  }
};

const std::vector<std::string> kFailing = {"HNPRECHECK_PROFILE=" + kFailingProfile,
                                           "HNPRECHECK_ARGS=--snapshot " + kFailingSnapshot};

}  // namespace

TEST_CASE("slurm wrappers: a failing check makes the health check drain the node with the codes") {
  Wrapper w;
  auto r = w.run("slurm-healthcheck", kFailing);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const std::string log = w.log();
  CHECK(log.rfind("update NodeName=n1 State=DRAIN Reason=hnprecheck: FAIL ", 0) == 0);
  CHECK(log.find("NET-") != std::string::npos);
  CHECK(log.size() < 320);  // one line, cut to a length scontrol and syslog take
  CHECK(read_file(w.t.path() + "/state/healthcheck.txt").find(" checks: ") != std::string::npos);
}

TEST_CASE("slurm wrappers: a passing check drains nothing and resumes only its own drain") {
  Wrapper w;
  // This machine with the embedded profile (what quickstart checks).
  auto pass = w.run("slurm-healthcheck", {"HNPRECHECK_PROFILE=embedded"});
  INFO(pass.out << pass.err << read_file(w.t.path() + "/state/healthcheck.txt"));
  REQUIRE(pass.exit_code == 0);
  CHECK(w.log().empty());
  auto other = w.run("slurm-healthcheck", {"HNPRECHECK_PROFILE=embedded", "HNPRECHECK_RESUME=yes",
                                           "FAKE_REASON=disk replaced [root@2026-01-01]"});
  CHECK(other.exit_code == 0);
  CHECK(w.log() == "show node n1\n");
  auto own = w.run("slurm-healthcheck",
                   {"HNPRECHECK_PROFILE=embedded", "HNPRECHECK_RESUME=yes",
                    "FAKE_REASON=hnprecheck: FAIL HW-NIC-STATE eth0 [root@2026-01-01]"});
  CHECK(own.exit_code == 0);
  CHECK(w.log() == "show node n1\nshow node n1\nupdate NodeName=n1 State=RESUME\n");
}

TEST_CASE("slurm wrappers: a missing profile is a failure naming it, never a silent default") {
  Wrapper w;
  auto hc = w.run("slurm-healthcheck", {"HNPRECHECK_PROFILE=/etc/no/such/profile.yaml"});
  CHECK(hc.exit_code == 2);
  CHECK(w.log().find("State=DRAIN Reason=hnprecheck: no profile at /etc/no/such/profile.yaml") !=
        std::string::npos);
  auto prolog = w.run("slurm-prolog", {"HNPRECHECK_PROFILE=/etc/no/such/profile.yaml"});
  CHECK(prolog.exit_code == 2);
  CHECK(prolog.err.find("no profile at /etc/no/such/profile.yaml") != std::string::npos);
}

TEST_CASE("slurm wrappers: the Prolog exits non-zero on a failing check and keeps the report") {
  Wrapper w;
  auto r = w.run("slurm-prolog", kFailing);
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("hnprecheck: FAIL ", 0) == 0);
  CHECK(w.log().empty());  // Slurm drains on a failed Prolog by itself
  CHECK(read_file(w.t.path() + "/state/prolog.txt").find("FAIL") != std::string::npos);
  auto bad_args = w.run("slurm-prolog", {"HNPRECHECK_PROFILE=embedded", "HNPRECHECK_ARGS=--bogus"});
  CHECK(bad_args.exit_code == 2);
  CHECK(bad_args.err.find("bad usage or invalid input") != std::string::npos);
}
