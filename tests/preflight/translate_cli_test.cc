// `hnprecheck translate` as a user runs it: the golden script end to end,
// exit codes 0/1/2, --check, --from-env, manifests, --rules and --list-rules.
#include <catch2/catch.hpp>
#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using hn::test::TempDir;

namespace {

const std::string kDir = std::string(HN_FIXTURE_DIR) + "/translate/";

hn::test::ProcessResult cli(std::vector<std::string> args,
                            const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), {HN_BINARY, "translate"});
  return run_process(args, 60, env);
}

// The NAME=value lines of an env file, without comments.
std::string assignments(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') out += line + "\n";
  return out;
}

}  // namespace

TEST_CASE("translate cli: the golden launch script end to end") {
  TempDir dir;
  std::string out = dir.path() + "/hccl.env", json = dir.path() + "/r.json";
  auto r = cli({"--from", "torch", "--to", "hccl", kDir + "launch.sbatch", "--profile",
                kDir + "cluster.yaml", "--local-port-range", "32768 60999", "--pg-timeout", "1800",
                "--out", out, "--json", json});
  INFO(r.err);
  CHECK(r.exit_code == 0);  // warnings (clamped, risky drops, default ports) but nothing to review
  CHECK(assignments(hn::test::read_file(out)) ==
        assignments(hn::test::read_file(kDir + "launch.expected.env")));
  auto j = nlohmann::json::parse(hn::test::read_file(json));
  CHECK(j["command"] == "translate");
  CHECK(j["summary"]["fail"] == 0);
  // clamped (3), risky drops (IB_HCA, GID_INDEX, the #SBATCH NCCL_DEBUG
  // overridden, the buffer size far below HCCL's default), the here-document
  // not followed, the advice on HCCL_EXEC_TIMEOUT, the default ports.
  CHECK(j["summary"]["warn"] == 10);
  const auto& t = j["extra"]["translation"];
  CHECK(t["from"] == "torch");
  CHECK(t["tables"].size() == 3);
  CHECK(t["env"].size() == 14);
  bool found = false;
  for (const auto& f : j["findings"])
    if (f["entity"] == "NCCL_BUFFSIZE") {
      found = true;
      CHECK(f["code"] == "COMM-PARAM-DROPPED");  // 8 MB: 4% of HCCL's default
      CHECK(f["layer"] == "L3");
      CHECK(f["evidence"]["source"] == "N1,N2,H-BS,A7.5");
      CHECK(f["evidence"]["where"] == kDir + "launch.sbatch:29");
    }
  CHECK(found);
  r = cli({"--from", "torch", "--to", "hccl", kDir + "launch.sbatch", "--profile",
           kDir + "cluster.yaml", "--local-port-range", "32768 60999", "--pg-timeout", "1800",
           "--strict"});
  CHECK(r.exit_code == 1);  // --strict: warnings fail the gate too
}

TEST_CASE("translate cli: needs-review fails the gate, --out - keeps stdout for the env file") {
  TempDir dir;
  std::string job = dir.write("job.sh", "export NCCL_SOCKET_IFNAME=^docker,lo NCCL_DEBUG=WARN\n");
  auto r =
      cli({"--from", "nccl", "--to", "hccl", job, "--out", "-", "--local-port-range", "1000 2000"});
  CHECK(r.exit_code == 1);
  CHECK(assignments(r.out) == "ASCEND_GLOBAL_LOG_LEVEL=2\n");
  CHECK_THAT(r.err, Catch::Contains("FAIL   COMM-PARAM-REVIEW"));
  CHECK_THAT(r.err, Catch::Contains("Pass --profile CLUSTER.yaml"));
  r = cli({"--from", "nccl", "--to", "hccl", job, "--out", "-", "--json", "-"});
  CHECK(r.exit_code == 2);
}

TEST_CASE("translate cli: unreadable input is exit 2, a bad value is a finding on its variable") {
  TempDir dir;
  struct Case {
    std::string text;
    std::string expect;
  };
  const Case unreadable[] = {
      {"export NCCL_DEBUG='INFO\n", "job.sh:1: unterminated single quote"},
      {"\n\nexport 9X=1\n", "job.sh:3: 9X:"},
  };
  for (const auto& c : unreadable) {
    INFO(c.text);
    std::string job = dir.write("job.sh", c.text);
    auto r = cli({"--from", "nccl", "--to", "hccl", job});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
  }
  // A value the library rejects: needs review on that variable (exit 1), at
  // file:line, and the rest is still translated.
  const Case values[] = {
      {"export A=1\nexport NCCL_IB_TIMEOUT=abc\nexport NCCL_IB_RETRY_CNT=7\n",
       "'abc' is not a value nccl reads: expected an integer"},
      {"export NCCL_ALGO=Rign\nexport NCCL_IB_RETRY_CNT=7\n", "unknown NCCL algorithm 'Rign'"},
  };
  for (const auto& c : values) {
    INFO(c.text);
    std::string job = dir.write("job.sh", c.text);
    auto r = cli({"--from", "nccl", "--to", "hccl", job, "--out", "-"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("FAIL   COMM-PARAM-REVIEW") && Catch::Contains(c.expect));
    CHECK_THAT(r.out, Catch::Contains("HCCL_RDMA_RETRY_CNT=7"));
  }
  std::string bad = dir.write("bad.env", "A=1\nnot an assignment\n");
  auto r = cli({"--from", "nccl", "--to", "hccl", bad});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.env:2:"));
}

TEST_CASE("translate cli: usage errors are exit 2 and say what is wrong") {
  TempDir dir;
  std::string job = dir.write("job.sh", "export NCCL_DEBUG=INFO\n");
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const Case cases[] = {
      {{"--from", "nccl", job}, "--to: is required"},
      {{"--to", "hccl", job}, "--from: is required"},
      {{"--check", "--from", "nccl", "--to", "hccl", job}, "--check: checks the --to library"},
      {{"--from", "slurm", "--to", "hccl", job}, "no rules translate slurm to hccl"},
      {{"--from", "nccl", "--to", "hccl"}, "INPUT: give at least one"},
      {{"--from", "nccl", "--to", "hccl", job, "--platform", "b200"},
       "--platform: unknown platform 'b200'"},
      {{"--from", "nccl", "--to", "hccl", job, "--reserved-ports", "1-2"},
       "--reserved-ports: needs --local-port-range"},
      {{"--from", "nccl", "--to", "hccl", job, "--node", "n0"}, "need --profile"},
      {{"--from", "nccl", "--to", "hccl", job, "--format", "xml"}, "--format: unknown format"},
      {{"--from", "nccl", "--to", "hccl", job, "--pg-timeout", "-5"}, "--pg-timeout"},
      {{"--from", "nccl", "--to", "hccl", job + ".missing"}, "cannot open"},
  };
  for (const auto& c : cases) {
    INFO(c.expect);
    auto r = cli(c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
  }
}

TEST_CASE("translate cli: --check validates an HCCL configuration") {
  TempDir dir;
  std::string env =
      dir.write("hccl.env", "HCCL_CONNECT_TIMEOUT=600\nHCCL_RDMA_TC=106\nHCCL_EVENT_TIMEOUT=600\n");
  std::string out = dir.path() + "/fixed.env";
  auto r = cli({"--check", "--to", "hccl", env, "--local-port-range", "32768 60999",
                "--reserved-ports", "60000-60031", "--out", out, "--pg-timeout", "3600"});
  INFO(r.out << r.err);
  // HCCL_RDMA_TC=106 is not a multiple of 4, and HCCL_EVENT_TIMEOUT=600 is below
  // HCCL_EXEC_TIMEOUT's default 1836.
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("PASS   COMM-PARAM-VALID"));
  CHECK_THAT(r.out, Catch::Contains("FAIL   COMM-PARAM-INVALID"));
  CHECK_THAT(r.out, Catch::Contains("HCCL_RDMA_TC=106 (" + env +
                                    ":2) is not valid for hccl: 106 is not a multiple of 4"));
  CHECK_THAT(r.out, Catch::Contains("FAIL   COMM-PARAM-ORDER"));
  CHECK_THAT(r.out, Catch::Contains("Set HCCL_EVENT_TIMEOUT to at least 1837"));
  CHECK(assignments(hn::test::read_file(out)) ==
        "HCCL_CONNECT_TIMEOUT=600\nHCCL_RDMA_TC=104\nHCCL_EVENT_TIMEOUT=600\n");
  std::string good = dir.write("good.env", "HCCL_CONNECT_TIMEOUT=600\nHCCL_RDMA_SL=4\n");
  r = cli({"--check", "--to", "hccl", good, "--local-port-range", "32768 60999", "--reserved-ports",
           "60000-60031", "--pg-timeout", "3600"});
  CHECK(r.exit_code == 0);
}

TEST_CASE("translate cli: --check fails values the target's own rules would change") {
  TempDir dir;
  // The cross-variable port and timeout rules are settled, so only the value decides.
  const std::vector<std::string> ctx = {"--local-port-range", "32768 60999",  "--reserved-ports",
                                        "60000-60031",        "--pg-timeout", "3600"};
  auto check = [&](const std::string& text) {
    std::string env = dir.write("hccl.env", text);
    std::vector<std::string> args = {"--check", "--to", "hccl", env};
    args.insert(args.end(), ctx.begin(), ctx.end());
    return cli(args);
  };
  struct Case {
    std::string line, expect, fix;
  };
  const Case cases[] = {
      {"HCCL_RDMA_TC=106", "106 is not a multiple of 4", "Set HCCL_RDMA_TC=104"},
      {"HCCL_RDMA_TIMEOUT=25", "25 is outside HCCL_RDMA_TIMEOUT's range [5, 20]",
       "Set HCCL_RDMA_TIMEOUT=20"},
      {"HCCL_RDMA_RETRY_CNT=0", "0 is outside HCCL_RDMA_RETRY_CNT's range [1, 7]",
       "Set HCCL_RDMA_RETRY_CNT=1"},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto r = check(c.line + "\n");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("FAIL   COMM-PARAM-INVALID"));
    CHECK_THAT(r.out, Catch::Contains(c.expect));
    CHECK_THAT(r.out, Catch::Contains(c.fix));
    CHECK_THAT(r.out, !Catch::Contains("PASS   COMM-PARAM-CONVERTED"));
    CHECK_THAT(r.out, !Catch::Contains("WARN   COMM-PARAM-CLAMPED"));
  }
  // HCCL_BUFFSIZE in bytes, as NCCL_BUFFSIZE is: 8 TB per buffer.
  auto r = check("HCCL_BUFFSIZE=8388608\n");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("FAIL   COMM-PARAM-REVIEW"));
  CHECK_THAT(r.out, Catch::Contains("8388608 MB is above the plausible maximum of 65536 MB"));
  CHECK_THAT(r.out, Catch::Contains("looks like bytes"));
  // A valid configuration, one value only re-spelled (hex), still passes.
  r = check("HCCL_RDMA_TC=104\nHCCL_RDMA_TIMEOUT=0x14\nHCCL_RDMA_RETRY_CNT=7\nHCCL_BUFFSIZE=400\n");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, !Catch::Contains("COMM-PARAM-INVALID"));
}

TEST_CASE("translate cli: a source value outside its own library's range needs review") {
  TempDir dir;
  for (const char* line : {"NCCL_BUFFSIZE=-1", "NCCL_SOCKET_RETRY_CNT=-3"}) {
    INFO(line);
    std::string job = dir.write("nccl.env", std::string(line) + "\n");
    auto r = cli({"--from", "nccl", "--to", "hccl", job, "--out", "-", "--local-port-range",
                  "32768 60999", "--reserved-ports", "60000-60031"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(assignments(r.out).empty());  // nothing is written for it
    CHECK_THAT(r.err, Catch::Contains("FAIL   COMM-PARAM-REVIEW"));
    CHECK_THAT(r.err, Catch::Contains(std::string(line) + " is outside nccl's own range [1, inf)"));
    CHECK_THAT(r.err, Catch::Contains("fix the source value first"));
  }
}

TEST_CASE("translate cli: --from-env and Kubernetes manifests") {
  auto r = cli(
      {"--from", "nccl", "--to", "hccl", "--from-env", "--out", "-", "--local-port-range", "1 2"},
      {"NCCL_DEBUG=TRACE", "NCCL_BUFFSIZE=268435456"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(assignments(r.out), Catch::Contains("ASCEND_GLOBAL_LOG_LEVEL=0\n"));
  CHECK_THAT(assignments(r.out), Catch::Contains("HCCL_BUFFSIZE=256\n"));
  CHECK_THAT(r.err, Catch::Contains("(environment)"));

  TempDir dir;
  std::string job =
      dir.write("job.yaml",
                "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n"
                "    Worker:\n      template:\n        spec:\n          containers:\n"
                "            - name: pytorch\n              env:\n"
                "                - {name: NCCL_IB_TIMEOUT, value: \"22\"}\n");
  r = cli({"--from", "torch", "--to", "hccl", job, "--out", "-", "--local-port-range", "1 2"});
  CHECK(r.exit_code == 0);
  CHECK(assignments(r.out) == "HCCL_RDMA_TIMEOUT=20\n");
  CHECK_THAT(r.err, Catch::Contains("job.yaml:11 (container pytorch)"));
}

TEST_CASE(
    "translate cli: --rules replaces a table, --list-rules shows the rows and their sources") {
  TempDir dir;
  std::string rules = dir.write(
      "site.toml",
      "from = \"nccl\"\nto = \"hccl\"\n[[row]]\nfrom = \"NCCL_DEBUG\"\n"
      "to = \"ASCEND_GLOBAL_LOG_LEVEL\"\nvalues = { INFO = \"2\" }\nsource = \"site policy\"\n");
  std::string job = dir.write("job.sh", "export NCCL_DEBUG=INFO\n");
  auto r = cli({"--from", "nccl", "--to", "hccl", job, "--rules", rules, "--out", "-",
                "--local-port-range", "1 2"});
  CHECK(r.exit_code == 0);
  CHECK(assignments(r.out) == "ASCEND_GLOBAL_LOG_LEVEL=2\n");
  std::string broken =
      dir.write("broken.toml",
                "from = \"nccl\"\nto = \"hccl\"\n[[row]]\nfrom = \"X\"\nto = \"Y\"\nsource = 1\n");
  r = cli({"--from", "nccl", "--to", "hccl", job, "--rules", broken});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("broken.toml:6: row[0].source: expected a string"));

  r = cli({"--from", "nccl", "--to", "hccl", "--list-rules"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("NCCL_BUFFSIZE -> HCCL_BUFFSIZE"));
  CHECK_THAT(r.out, Catch::Contains("unit: bytes -> MB (1 MB = 1048576 bytes), rounded up"));
  CHECK_THAT(r.out, Catch::Contains("range: HCCL_RDMA_TIMEOUT [5, 20]"));
  CHECK_THAT(r.out, Catch::Contains("source: N1,N2,H-BS,A7.5"));
  CHECK_THAT(r.out,
             Catch::Contains(
                 "pg-timeout-above-connect-timeout (greater: @pg_timeout, HCCL_CONNECT_TIMEOUT)"));
  r = cli({"--check", "--to", "hccl", "--list-rules"});
  CHECK_THAT(r.out, Catch::Contains("HCCL_EXEC_TIMEOUT"));
  CHECK_THAT(r.out, Catch::Contains("(0, 17340], rounded down to a multiple of 68"));
}

TEST_CASE("translate cli: --help documents the command") {
  auto r = run_process({HN_BINARY, "translate", "--help"});
  CHECK(r.exit_code == 0);
  for (const char* s : {"--from", "--to", "--check", "--from-env", "--profile", "--out", "--rules",
                        "--strict", "--pg-timeout", "--local-port-range", "needs review"})
    CHECK_THAT(r.out, Catch::Contains(s));
  // translate uses no profile unless given one (its report says "profile none"),
  // so the shared "default: the embedded profile" text must not appear.
  // The option column wraps, so compare with runs of blanks squashed to one space.
  std::string flat;
  for (char ch : r.out)
    if (!std::isspace(static_cast<unsigned char>(ch)))
      flat += ch;
    else if (!flat.empty() && flat.back() != ' ')
      flat += ' ';
  CHECK_THAT(flat, !Catch::Contains("embedded profile"));
  CHECK_THAT(flat, !Catch::Contains("match the hostname"));
  CHECK_THAT(flat, Catch::Contains("--profile FILE cluster profile (YAML)"));
  CHECK_THAT(flat, Catch::Contains("default: none (no profile is used"));
  CHECK_THAT(flat, Catch::Contains("needs review or is invalid"));
}
