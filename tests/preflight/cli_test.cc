// Drives build/bin/hnprecheck as a user would: exit codes, error messages and
// the machine-readable outputs.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using hn::test::TempDir;

namespace {
hn::test::ProcessResult cli(std::vector<std::string> args) {
  return hn::test::run_hnprecheck(std::move(args), 60);
}
}  // namespace

TEST_CASE("cli: help lists every command and the exit codes") {
  auto r = cli({"--help"});
  CHECK(r.exit_code == 0);
  for (const char* cmd : {"node", "snapshot", "diff", "consistency", "ops", "translate"})
    CHECK_THAT(r.out, Catch::Contains(cmd));
  CHECK_THAT(r.out, Catch::Contains("3  the tool could not run a check"));
  auto n = cli({"node", "--help"});
  CHECK(n.exit_code == 0);
  CHECK_THAT(n.out, Catch::Contains("--profile"));
  CHECK_THAT(n.out, Catch::Contains("--timeout"));
  CHECK_THAT(n.out, Catch::Contains("warnings allowed unless --strict"));
}

TEST_CASE("cli: each command's help states its own exit codes") {
  // Commands without --strict never mention it; each says what 1 means.
  struct Case {
    const char* command;
    const char* exit_1;  // the text after "1  ", or "" when it never exits 1
  };
  const Case cases[] = {
      {"diff", "the snapshots differ"},
      {"snapshot", ""},
      {"bench", "an element was wrong"},
      {"consistency", "a value differs between nodes"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.command);
    auto r = cli({c.command, "--help"});
    CHECK(r.exit_code == 0);
    std::string codes = r.out.substr(r.out.find("Exit codes:"));
    CHECK_THAT(codes, Catch::Contains("  0  ") && Catch::Contains("  2  "));
    if (*c.exit_1)
      CHECK_THAT(codes, Catch::Contains(std::string("  1  ") + c.exit_1));
    else
      CHECK_THAT(codes, !Catch::Contains("  1  "));
    bool has_strict = r.out.find("--strict ") != std::string::npos;  // the option line
    CHECK((codes.find("--strict") != std::string::npos) == has_strict);
    CHECK_THAT(codes, !Catch::Contains("at least one check failed"));
  }
  auto c = cli({"consistency", "--help"});
  CHECK_THAT(c.out, Catch::Contains("a snapshot of a host the profile does not declare"));
}

TEST_CASE("cli: --node must name a node and an empty name is not the hostname") {
  TempDir dir;
  std::string p = dir.write("p.yaml",
                            "version: 1\nnodes: [{name: gpu01}, {name: gpu02}]\nplanes:\n"
                            "  - {name: mgmt, type: management, nic: lo}\n");
  auto r = cli({"node", "--profile", p, "--node", ""});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--node") && Catch::Contains("gpu01, gpu02"));
  r = cli({"node", "--profile", p, "--node", "gpu07"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("gpu07"));
  // Without --node, on a host the profile does not list: a WARN says so.
  r = cli({"node", "--profile", p, "--json", "-"});
  auto j = nlohmann::json::parse(r.out);
  int warned = 0;
  for (const auto& f : j["findings"])
    if (f["code"] == "PROFILE-NODE") {
      CHECK(f["status"] == "WARN");
      CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("(gpu01, gpu02)"));
      ++warned;
    }
  CHECK(warned == 1);
  r = cli({"node", "--profile", p, "--node", "gpu01", "--json", "-"});
  j = nlohmann::json::parse(r.out);
  for (const auto& f : j["findings"])
    if (f["code"] == "PROFILE-NODE") CHECK(f["status"] == "PASS");
  r = cli(
      {"translate", "--from", "nccl", "--to", "hccl", "--from-env", "--profile", p, "--node", ""});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--node"));
}

TEST_CASE("cli: unknown commands and options are rejected by name with exit 2") {
  auto r = cli({"nodes"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown command 'nodes'"));
  r = cli({"node", "--bogus"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown option '--bogus'"));
  r = cli({"--frobnicate"});
  CHECK(r.exit_code == 2);
  CHECK(cli({}).exit_code == 2);
  r = cli({"node", "--timeout", "0"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--timeout"));
  r = cli({"node", "--json", "-", "--ctrf", "-"});
  CHECK(r.exit_code == 2);
  r = cli({"node", "stray"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unexpected argument 'stray'"));
  r = cli({"diff", "a.yaml", "b.yaml", "c.yaml"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unexpected argument 'c.yaml'"));
}

TEST_CASE("cli: positional arguments are not listed as options in help") {
  auto r = cli({"diff", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Usage: hnprecheck diff A.yaml B.yaml"));
  CHECK_THAT(r.out, !Catch::Contains("--a ") && !Catch::Contains("--b "));
}

TEST_CASE("cli: a missing or malformed profile is exit 2 with file:line") {
  TempDir dir;
  auto r = cli({"node", "--profile", dir.path() + "/nope.yaml"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("nope.yaml: cannot open"));
  std::string bad =
      dir.write("bad.yaml", "version: 1\nplanes:\n  - {name: p, type: parameter, nic: [\n");
  r = cli({"node", "--profile", bad});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(bad + ":"));
  std::string typo =
      dir.write("typo.yaml", "version: 1\nplanes:\n  - {name: p, type: parameter, nick: eth0}\n");
  r = cli({"node", "--profile", typo});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(typo + ":3:") && Catch::Contains("unknown key 'nick'"));
}

TEST_CASE("cli: the embedded default profile passes on this machine and --json - parses") {
  auto r = cli({"node", "--json", "-"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema_version") == 1);
  CHECK(j.at("command") == "node");
  CHECK(j.at("summary").at("fail") == 0);
  CHECK(j.at("findings").size() > 0);
  CHECK_THAT(r.err, Catch::Contains("L7 physical"));  // text moved to stderr
}

TEST_CASE("cli: a profile naming a NIC that does not exist fails and names it") {
  TempDir dir;
  std::string p =
      dir.write("p.yaml", "version: 1\nplanes:\n  - {name: param0, type: parameter, nic: hnzz9}\n");
  std::string junit = dir.path() + "/r.xml", ctrf = dir.path() + "/r.ctrf.json";
  auto r = cli({"node", "--profile", p, "--junit", junit, "--ctrf", ctrf, "--no-color"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("HW-NIC-PRESENT") && Catch::Contains("hnzz9"));
  std::ifstream jf(junit);
  std::string xml((std::istreambuf_iterator<char>(jf)), {});
  CHECK_THAT(xml, Catch::Contains("<failure"));
  std::ifstream cf(ctrf);
  auto c = nlohmann::json::parse(cf);
  CHECK(c.at("results").at("summary").at("failed") >= 1);
}

TEST_CASE("cli: snapshot, replay and diff") {
  TempDir dir;
  std::string snap = dir.path() + "/a.yaml";
  CHECK(cli({"snapshot"}).exit_code == 2);
  auto r = cli({"snapshot", "--out", snap});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  r = cli({"node", "--snapshot", snap, "--no-color"});
  CHECK(r.exit_code == 0);
  CHECK(cli({"diff", snap, snap}).exit_code == 0);

  std::ifstream in(snap);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto pos = text.find("mtu: 65536");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, 10, "mtu: 1500");
  std::string b = dir.write("b.yaml", text);
  r = cli({"diff", snap, b, "--json", "-"});
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.at("differences").size() == 1);
  CHECK(j["differences"][0]["entity"] == "physical/links/lo");
  CHECK(j["differences"][0]["b"] == "1500");

  std::string broken = dir.write("broken.yaml", "version: 1\nphysical: {linkz: []}\n");
  r = cli({"diff", snap, broken});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("broken.yaml:2"));
}

TEST_CASE("cli: mount checks replay from a snapshot, the jitter run needs the live mount") {
  TempDir dir;
  std::string snap = dir.write("s.yaml", R"(version: 1
hostname: node0
physical: {memory: {total_kib: 16777216, available_kib: 8388608}}
netplane: {}
storage:
  mounts:
    - {path: /, fstype: ext4, source: /dev/vda, mount_id: 27, parent_id: 1}
    - {path: /mnt/shared, fstype: nfs4, source: "filer:/train", options: [rw, relatime],
       super_options: [rw, vers=4.2, soft], mount_id: 60, parent_id: 27}
)");
  std::string profile = dir.write("p.yaml", R"(version: 1
storage:
  mounts:
    - path: /mnt/shared
      fstype: [nfs4]
      options: {require: [rw], forbid: [soft]}
      source: "filer:/train"
    - path: /mnt/missing
)");
  auto r =
      cli({"node", "--snapshot", snap, "--profile", profile, "--storage-jitter", "--json", "-"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  std::map<std::string, std::string> status;
  for (const auto& f : j["findings"])
    status[f["code"].get<std::string>() + " " + f["entity"].get<std::string>()] = f["status"];
  CHECK(status["STOR-MOUNT-PRESENT /mnt/shared"] == "PASS");
  CHECK(status["STOR-MOUNT-FSTYPE /mnt/shared"] == "PASS");
  CHECK(status["STOR-MOUNT-OPTIONS /mnt/shared"] == "FAIL");
  CHECK(status["STOR-MOUNT-SOURCE /mnt/shared"] == "PASS");
  CHECK(status["STOR-MOUNT-RW /mnt/shared"] == "SKIP");
  CHECK(status["STOR-JITTER-LATENCY /mnt/shared"] == "SKIP");
  CHECK(status["STOR-MOUNT-PRESENT /mnt/missing"] == "FAIL");
  auto help = cli({"node", "--help"});
  CHECK_THAT(help.out, Catch::Contains("--storage-jitter"));
}
