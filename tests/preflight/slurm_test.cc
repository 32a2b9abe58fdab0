// The two Slurm uses of hnprecheck, on a real Slurm (slurmctld + two slurmd
// as virtual nodes v1, v2 on this host: tests/support/slurm_cluster.h):
//   * `srun hnprecheck bench` as a job step: ranks from SLURM_PROCID & co.;
//   * `hnprecheck node` as the Prolog: a pass lets the job run, a fail keeps
//     it off the node and Slurm drains the node with "Prolog error".
// The README's "Running under schedulers / Slurm" recipes are these (in full
// in docs/schedulers.md).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "tests/support/skip.h"
#include "tests/support/slurm_cluster.h"
#include "tests/support/temp_dir.h"

using hn::test::ProcessResult;
using hn::test::SlurmCluster;
using hn::test::SlurmClusterOptions;

namespace {

using Clock = std::chrono::steady_clock;

void skip_unless_slurm() {
  if (std::string why = SlurmCluster::unavailable_reason(); !why.empty()) hn::test::skip(why);
}

// A job token, as `openssl rand -hex 32` would make.
std::string token() {
  return "HN_TOKEN=5f0c4d1e9a7b3c2d8e6f4a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d";
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The Prolog of the README, with this build's binary and the cluster's files.
std::string prolog_script(const std::string& dir) {
  return "#!/bin/sh\n"
         "exec " HN_BINARY " node --profile " +
         dir + "/cluster.yaml \\\n     --quiet --timeout 10 --json " + dir +
         "/prolog-$SLURM_JOB_ID.json\n";
}

// Holds on this machine: the embedded default profile (the NIC of the
// default route is up, memory left, no overheating).
std::string passing_profile() {
  return hn::test::read_file(std::string(HN_SOURCE_DIR) + "/profiles/default.yaml");
}

// The parameter plane is on a NIC this node does not have.
std::string failing_profile() {
  return "version: 1\n"
         "cluster: slurm-test\n"
         "planes:\n"
         "  - {name: param, type: parameter, nic: hnnosuch0}\n";
}

// A cluster whose Prolog is prolog_script(); the test writes the profile.
SlurmClusterOptions with_prolog() {
  SlurmClusterOptions o;
  o.prolog = prolog_script;
  return o;
}

nlohmann::json prolog_report(const SlurmCluster& c) {
  for (const auto& e : std::filesystem::directory_iterator(c.dir()))
    if (e.path().filename().string().rfind("prolog-", 0) == 0 && e.path().extension() == ".json")
      return nlohmann::json::parse(hn::test::read_file(e.path()));
  return nullptr;
}

// Polls until the node's state is want, or contains it when partial: Slurm
// sets it asynchronously (a node is IDLE+COMPLETING for a moment after a job).
std::string wait_state(const SlurmCluster& c, const std::string& node, const std::string& want,
                       bool partial = false, double timeout_s = 10) {
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  std::string state;
  while (Clock::now() < deadline) {
    state = c.node_state(node);
    if (partial ? state.find(want) != std::string::npos : state == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return state;
}

}  // namespace

TEST_CASE("srun -N2 -n4 hnprecheck bench: allreduce over TCP, 4 Slurm ranks, every value right") {
  skip_unless_slurm();
  SlurmCluster c;
  std::string json = c.dir() + "/bench.json";
  std::string rendezvous = "127.0.0.1:" + std::to_string(hn::test::free_tcp_port());
  auto t0 = Clock::now();
  ProcessResult r =
      c.run({"srun", "-N2", "-n4", HN_BINARY, "bench", "--op", "allreduce", "-b", "8", "-e", "1M",
             "--transport", "tcp", "--rendezvous", rendezvous, "--timeout", "30", "--json", json},
            60, {token()});
  INFO("srun took " << seconds_since(t0) << " s\n" << r.out << r.err << c.logs());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("4 rank(s), transport tcp"));
  CHECK_THAT(r.out, Catch::Contains("out of bounds values: 0 OK"));
  auto j = nlohmann::json::parse(hn::test::read_file(json));
  CHECK(j["ranks"] == 4);
  CHECK(j["transport"] == "tcp");
  CHECK(j["wrong_total"] == 0);
  CHECK(j["rows"].size() >= 2);
  for (const auto& row : j["rows"]) CHECK(row["wrong"] == 0);
  // Every rank linked to every other over TCP: links name the ranks 0..3.
  std::set<int> ranks;
  for (const auto& l : j["links"]) ranks.insert(l["rank"].get<int>());
  CHECK(ranks == std::set<int>{0, 1, 2, 3});
}

TEST_CASE("srun hnprecheck bench: a rank killed mid-run ends the step non-zero and is named") {
  skip_unless_slurm();
  SlurmCluster c;
  std::string bench = std::string(HN_BINARY) +
                      " bench --op allreduce -b 16M -e 16M --iters 100000 --transport tcp "
                      "--rendezvous 127.0.0.1:" +
                      std::to_string(hn::test::free_tcp_port()) + " --timeout 20";
  // Rank 1 (on v2) is SIGKILLed 2 s into a run that would take minutes.
  // Rank 0 keeps its own stderr and exit status in files: srun may drop a
  // task's last output when it ends a step whose task was killed.
  std::string cmd =
      "if [ \"$SLURM_PROCID\" = 1 ]; then\n"
      "  " +
      bench +
      " & pid=$!; sleep 2; kill -KILL $pid; wait $pid; exit $?\n"
      "fi\n" +
      bench + " 2>" + c.dir() + "/rank0.err; rc=$?; echo $rc >" + c.dir() + "/rank0.rc; exit $rc\n";
  auto t0 = Clock::now();
  ProcessResult r = c.run({"srun", "-N2", "-n2", "/bin/sh", "-c", cmd}, 60, {token()});
  double took = seconds_since(t0);
  std::string rank0_err, rank0_rc;
  if (std::filesystem::exists(c.dir() + "/rank0.rc")) {
    rank0_err = hn::test::read_file(c.dir() + "/rank0.err");
    rank0_rc = hn::test::read_file(c.dir() + "/rank0.rc");
  }
  INFO("srun took " << took << " s\n" << r.out << r.err << "rank 0: " << rank0_err << c.logs());
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != -1);  // srun ended by itself
  CHECK_THAT(r.err, Catch::Contains("task 1: Exited with exit code 137"));
  CHECK(took < 15);  // the survivor learnt of the death, it did not wait out --timeout 20
  CHECK(rank0_rc == "1\n");
  CHECK_THAT(rank0_err,
             Catch::Contains("hnprecheck bench: rank 0:") && Catch::Contains("rank 1 died"));
}

TEST_CASE("Slurm Prolog: hnprecheck node passes, the job runs and the node stays idle") {
  skip_unless_slurm();
  SlurmCluster c(with_prolog());
  c.write("cluster.yaml", passing_profile());
  auto t0 = Clock::now();
  ProcessResult r = c.run({"srun", "-N1", "-w", "v1", "true"}, 60);
  INFO("srun took " << seconds_since(t0) << " s\n" << r.out << r.err << c.logs());
  CHECK(r.exit_code == 0);
  auto report = prolog_report(c);
  REQUIRE(report.is_object());  // the Prolog really ran hnprecheck
  CHECK(report["summary"]["fail"] == 0);
  CHECK(wait_state(c, "v1", "IDLE") == "IDLE");
  CHECK(c.node_reason("v1").empty());
}

TEST_CASE("Slurm Prolog: hnprecheck node fails, the job does not run, the node drains") {
  skip_unless_slurm();
  SlurmCluster c(with_prolog());
  c.write("cluster.yaml", failing_profile());
  std::string ran = c.dir() + "/job-ran";
  auto t0 = Clock::now();
  ProcessResult r = c.run({"srun", "-N1", "-w", "v1", "touch", ran}, 60);
  INFO("srun took " << seconds_since(t0) << " s\n" << r.out << r.err << c.logs());
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != -1);  // srun gave up by itself
  CHECK_THAT(r.err, Catch::Contains("failed on node v1: Job prolog failed"));
  CHECK_FALSE(std::filesystem::exists(ran));
  CHECK_THAT(wait_state(c, "v1", "DRAIN", true), Catch::Contains("DRAIN"));
  CHECK_THAT(c.node_reason("v1"), Catch::StartsWith("Prolog error"));
  CHECK(wait_state(c, "v2", "IDLE") == "IDLE");  // the other node is untouched
  auto report = prolog_report(c);
  REQUIRE(report.is_object());  // and says why
  CHECK(report["summary"]["fail"].get<int>() >= 1);
  CHECK_THAT(report.dump(), Catch::Contains("hnnosuch0"));
  // Fixed (here: a profile that passes) and resumed, the node takes jobs again.
  c.write("cluster.yaml", passing_profile());
  ProcessResult resume = c.run({"scontrol", "update", "NodeName=v1", "State=RESUME"}, 30);
  INFO(resume.out << resume.err);
  CHECK(resume.exit_code == 0);
  r = c.run({"srun", "-N1", "-w", "v1", "touch", ran}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(ran));
  CHECK(wait_state(c, "v1", "IDLE") == "IDLE");
}

TEST_CASE("SlurmCluster: two idle nodes, and nothing left once it is gone") {
  skip_unless_slurm();
  std::string dir;
  {
    SlurmCluster c;
    dir = c.dir();
    CHECK(c.node_states() == "v1 idle\nv2 idle\n");
    CHECK(SlurmCluster::processes_of(dir).size() >= 4);  // munged, slurmctld, 2 slurmd
    ProcessResult r = c.run({"srun", "-N2", "/bin/sh", "-c", "echo $SLURMD_NODENAME"}, 30);
    INFO(r.out << r.err << c.logs());
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("v1") && Catch::Contains("v2"));
  }
  CHECK(SlurmCluster::processes_of(dir).empty());
  CHECK_FALSE(std::filesystem::exists(dir));
}
