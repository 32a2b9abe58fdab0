// `hnprecheck migrate` as a user runs it: the example job of examples/migrate
// (its six verdicts and its change list), the same job fixed (six "ready"),
// the form without a manifest, the generated files, and bad input (exit 2
// with file:line).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/readme_blocks.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using nlohmann::json;

namespace {

const std::string kExamples = std::string(HN_SOURCE_DIR) + "/examples/migrate";

json migration_of(const hn::test::ProcessResult& r) {
  INFO(r.err);
  return json::parse(r.out).at("extra").at("migration");
}

}  // namespace

TEST_CASE("migrate cli: the example job gets its six verdicts and its ordered change list") {
  auto r = hn::test::run_hnprecheck({"migrate", kExamples + "/legacy/job.toml", "--json", "-"});
  CHECK(r.exit_code == 1);
  json m = migration_of(r);
  CHECK(m.at("verdicts") == json{{"operators", "blocked"},
                                 {"comm", "needs_changes"},
                                 {"storage", "needs_changes"},
                                 {"network", "needs_changes"},
                                 {"scheduling", "needs_changes"},
                                 {"observability", "needs_changes"}});
  std::vector<std::string> changes;
  for (const auto& c : m.at("changes"))
    changes.push_back(c.at("severity").get<std::string>() + " " +
                      c.at("concern").get<std::string>() + " " + c.at("code").get<std::string>() +
                      " " + c.at("entity").get<std::string>() + " @" +
                      c.at("where").get<std::string>());
  const std::string s = kExamples + "/legacy/train.sbatch";
  CHECK(changes ==
        std::vector<std::string>{
            "blocked operators OP-UNSUPPORTED-TYPE Einsum f32 @" + kExamples +
                "/legacy/gpt_block.onnx",
            "needs_changes comm COMM-PARAM-DROPPED NCCL_IB_HCA @" + s + ":17",
            "needs_changes comm COMM-PARAM-DROPPED NCCL_IB_GID_INDEX @" + s + ":18",
            "needs_changes comm COMM-PARAM-CLAMPED NCCL_IB_TIMEOUT @" + s + ":19",
            "needs_changes comm COMM-PARAM-DROPPED NCCL_BUFFSIZE @" + s + ":22",
            "needs_changes comm COMM-PARAM-ORDER pg-timeout-above-exec-timeout @",
            "needs_changes comm MIG-COMM-APPLY environment @" + s,
            "needs_changes storage MIG-STOR-PATH /local/nvme/gpt-13b/checkpoints @" + s + ":57",
            "needs_changes storage MIG-STOR-PATH /local/nvme/gpt-13b/checkpoints @" + s + ":58",
            "needs_changes network COMM-PARAM-PORTS ports-outside-ephemeral-range @",
            "needs_changes scheduling MIG-SCHED-DIRECTIVE --gres @" + s + ":5",
            "needs_changes scheduling MIG-SCHED-TP-DOMAIN tp groups @" + s + ":46",
            "needs_changes observability MIG-OBS-COMM-LOG hccl logs @",
            "needs_changes observability MIG-STOR-PATH /local/logs/%x-%j.out @" + s + ":8",
            "needs_changes observability MIG-STOR-PATH /tmp/tensorboard/gpt-13b @" + s + ":60"});
  // What was found where: the layout and the paths come from the script.
  std::map<std::string, std::string> found;
  for (const auto& i : m.at("inputs"))
    if (i.at("used").get<bool>())
      found[i.at("name").get<std::string>()] = i.at("value").get<std::string>() + " " +
                                               i.at("origin").get<std::string>() + " " +
                                               i.at("where").get<std::string>();
  CHECK(found.at("tp") == "16 launch " + s + ":46");
  CHECK(found.at("pp") == "2 launch " + s + ":47");
  CHECK(found.at("nodes") == "4 launch " + s + ":3");
  CHECK(found.at("ranks_per_node") == "8 launch " + s + ":4");
  CHECK(found.at("checkpoint") == "/local/nvme/gpt-13b/checkpoints launch " + s + ":57");
  CHECK(found.at("pg_timeout_s") == "1800 launch " + s + ":61");
  CHECK(found.at("checkpoint_size") == "180GiB manifest " + kExamples + "/legacy/job.toml:22");
  // The operator coverage behind the chart.
  CHECK(m.at("operators")[0].at("by_class").at("unsupported-op") == 1);
  CHECK(m.at("operators")[0].at("total") == 33);
}

TEST_CASE(
    "migrate cli: the example job, fixed, needs no change, and what was not checked is said") {
  auto r = hn::test::run_hnprecheck({"migrate", kExamples + "/fixed/job.toml", "--json", "-"});
  CHECK(r.exit_code == 0);
  json m = migration_of(r);
  // Its MASTER_ADDR comes from scontrol at run time, and no certificate
  // measured the mount's write rate: those two are not called ready.
  for (const auto& [key, verdict] : m.at("verdicts").items()) {
    INFO(key);
    CHECK(verdict == (key == "network" || key == "storage" ? "not_checked" : "ready"));
  }
  CHECK(m.at("verdicts").size() == 6);
  CHECK(m.at("changes").empty());
  // The text report says so first.
  auto text = hn::test::run_hnprecheck({"migrate", kExamples + "/fixed/job.toml", "--no-color"});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("Storage access   NOT FULLY CHECKED  5 of 5 path(s) on "
                                       "shared storage; not checked: checkpoint\n"));
  CHECK_THAT(text.out, Catch::Contains("Changes, in order (blocking first)\n  none found, but not "
                                       "every check could run (storage, network: see their "
                                       "summaries); check those by hand before moving\n"));
  // --strict: a concern not fully checked is not a pass.
  auto strict =
      hn::test::run_hnprecheck({"migrate", kExamples + "/fixed/job.toml", "--strict", "--quiet"});
  CHECK(strict.exit_code == 1);
}

TEST_CASE("migrate cli: without a manifest, from the job's parts") {
  auto r = hn::test::run_hnprecheck({"migrate", "--script", kExamples + "/legacy/train.sbatch",
                                     "--model", kExamples + "/legacy/gpt_block.onnx", "--profile",
                                     kExamples + "/cluster.yaml", "--backend", "example-npu",
                                     "--local-port-range", "32768 60999", "--checkpoint-size",
                                     "180GiB", "--json", "-"});
  CHECK(r.exit_code == 1);
  json m = migration_of(r);
  CHECK(m.at("verdicts").at("operators") == "blocked");
  CHECK(m.at("job") == "gpt-13b");  // #SBATCH --job-name
  bool from_cli = false;
  for (const auto& i : m.at("inputs"))
    if (i.at("name") == "model")
      from_cli = i.at("origin") == "command line" && i.at("where") == "--model";
  CHECK(from_cli);
}

TEST_CASE(
    "migrate cli: --out-dir writes the env file and the migrated script, never a user's file") {
  hn::test::TempDir dir;
  const std::string out = dir.path() + "/out";
  auto r = hn::test::run_hnprecheck(
      {"migrate", kExamples + "/legacy/job.toml", "--out-dir", out, "--quiet"});
  CHECK(r.exit_code == 1);
  const std::string env = hn::test::read_file(out + "/gpt-13b.hccl.env");
  CHECK_THAT(env, Catch::Contains("HCCL_SOCKET_IFNAME==ens1f0\n"));
  CHECK_THAT(env, Catch::Contains("HCCL_RDMA_TC=104\n"));
  const std::string script = hn::test::read_file(out + "/train.migrated.sbatch");
  CHECK_THAT(script, Catch::Contains("# hnprecheck migrate: was: export NCCL_IB_TC=106\n"
                                     "export HCCL_RDMA_TC=104  # hnprecheck migrate: from "
                                     "NCCL_IB_TC=106, converted\n"));
  auto lint = hn::test::run_process({"/bin/bash", "-n", out + "/train.migrated.sbatch"});
  CHECK(lint.exit_code == 0);
  // The migrated script's own settings hold on the target.
  auto again = hn::test::run_hnprecheck({"migrate", kExamples + "/legacy/job.toml", "--script",
                                         out + "/train.migrated.sbatch", "--json", "-"});
  json m = migration_of(again);
  for (const auto& c : m.at("concerns"))
    if (c.at("key") == "comm")
      CHECK_THAT(c.at("summary").get<std::string>(),
                 Catch::StartsWith("9 setting(s) hold as they are"));

  // A second run replaces its own files; a file of the user's is never touched.
  CHECK(hn::test::run_hnprecheck(
            {"migrate", kExamples + "/legacy/job.toml", "--out-dir", out, "--quiet"})
            .exit_code == 1);
  dir.write("out/gpt-13b.hccl.env", "HCCL_BUFFSIZE=300\n");
  auto refused = hn::test::run_hnprecheck(
      {"migrate", kExamples + "/legacy/job.toml", "--out-dir", out, "--quiet"});
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("--out-dir: " + out +
                                          "/gpt-13b.hccl.env exists and was not written by "
                                          "hnprecheck migrate"));
  CHECK(hn::test::read_file(out + "/gpt-13b.hccl.env") == "HCCL_BUFFSIZE=300\n");
}

TEST_CASE("migrate cli: --out-dir never writes through another user's link or directory") {
  if (::geteuid() != 0) hn::test::skip("needs root to plant files of another uid");
  hn::test::TempDir dir;
  const std::string job = kExamples + "/legacy/job.toml";
  const std::string victim = dir.path() + "/victim";
  dir.write("victim", "precious\n");

  // Another user's directory that every user may write in: refused before any work.
  const std::string shared = dir.path() + "/shared";
  std::filesystem::create_directory(shared);
  REQUIRE(::chown(shared.c_str(), 65534, 65534) == 0);
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);
  REQUIRE(::symlink(victim.c_str(), (shared + "/gpt-13b.hccl.env").c_str()) == 0);
  auto r = hn::test::run_hnprecheck({"migrate", job, "--out-dir", shared, "--quiet"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("belongs to uid 65534 and every user may write in it"));

  // Our own directory with a link of another user's under an artifact's name.
  const std::string own = dir.path() + "/own";
  std::filesystem::create_directory(own);
  const std::string link = own + "/train.migrated.sbatch";
  REQUIRE(::symlink(victim.c_str(), link.c_str()) == 0);
  REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);
  r = hn::test::run_hnprecheck({"migrate", job, "--out-dir", own, "--quiet"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("refusing to follow the symlink"));
  CHECK(hn::test::read_file(victim) == "precious\n");
  CHECK_FALSE(std::filesystem::exists(own + "/gpt-13b.hccl.env"));  // nothing half-written

  // Without the link both are written, and the report says so.
  REQUIRE(::unlink(link.c_str()) == 0);
  r = hn::test::run_hnprecheck({"migrate", job, "--out-dir", own, "--json", "-", "--quiet"});
  CHECK(r.exit_code == 1);
  for (const auto& a : migration_of(r).at("artifacts")) CHECK(a.at("status") == "written");
}

TEST_CASE("migrate cli: the HTML page is well-formed and the Markdown has the verdict table") {
  hn::test::TempDir dir;
  const std::string html = dir.path() + "/m.html", md = dir.path() + "/m.md";
  auto r = hn::test::run_hnprecheck(
      {"migrate", kExamples + "/legacy/job.toml", "--html", html, "--markdown", md, "--quiet"});
  CHECK(r.exit_code == 1);
  auto lint = hn::test::run_process({"/usr/bin/xmllint", "--noout", html}, 30);
  INFO(lint.err);
  CHECK(lint.exit_code == 0);
  const std::string page = hn::test::read_file(html);
  CHECK_THAT(page, Catch::Contains("aria-label=\"verdicts per concern\""));
  CHECK_THAT(page, Catch::Contains("aria-label=\"operator coverage\""));
  CHECK(page.find("<script") == std::string::npos);
  CHECK_THAT(hn::test::read_file(md),
             Catch::Contains("| Operators | **blocked** | 1 of 33 nodes (3.0%) cannot run on "
                             "example-npu: Einsum f32 |"));
}

TEST_CASE("migrate cli: a malformed manifest is exit 2 naming file:line and the key") {
  hn::test::TempDir dir;
  auto run = [&](const std::string& text) {
    std::string path = dir.write("job.toml", text);
    return hn::test::run_hnprecheck({"migrate", path});
  };
  const std::string job = dir.path() + "/job.toml";
  struct Case {
    std::string text, error;
  };
  const Case cases[] = {
      {"version = 1\n[launch]\nscript = \"x.sh\"\nsrcipt = \"y.sh\"\n",
       job + ":4: launch.srcipt: unknown key 'srcipt'"},
      {"version = 1\n[layout]\ntp = 0\n", job + ":3: layout.tp: must be at least 1, got 0"},
      {"version = 1\n[storage]\ncheckpoint_size = \"lots\"\n",
       job + ":3: storage.checkpoint_size: "},
      {"version = 1\n[target\n", job + ":2: malformed TOML"},
      {"[launch]\nscript = \"x.sh\"\n", job + ":1: version: missing required key"},
      {"version = 1\n[launch]\nscript = \"missing.sbatch\"\n[target]\nprofile = \"p.yaml\"\n",
       dir.path() + "/missing.sbatch: "},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto r = run(c.text);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.error));
  }
  // A manifest without a profile is bad usage too, and says what to give.
  auto r = run("version = 1\n[launch]\nscript = \"" + kExamples + "/legacy/train.sbatch\"\n");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--profile: give the target cluster's profile"));
  CHECK(hn::test::run_hnprecheck({"migrate"}).exit_code == 2);
  CHECK(hn::test::run_hnprecheck({"migrate", "--checkpoint-size", "huge", "--script", "x"})
            .exit_code == 2);
}

TEST_CASE("migrate cli: the example's models are what make_model writes") {
  hn::test::TempDir dir;
  for (const char* kind : {"legacy", "fixed"}) {
    const std::string out = dir.path() + "/" + kind + ".onnx";
    auto r = hn::test::run_process({(std::filesystem::path(HN_BINARY).parent_path().parent_path() /
                                     "tests" / "make_example_model")
                                        .string(),
                                    kind, out});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(hn::test::read_file(out) ==
          hn::test::read_file(kExamples + "/" + kind + "/gpt_block.onnx"));
  }
}

TEST_CASE("migrate cli: the reference page's example report is a live run's output") {
  std::string example;
  const std::string page = std::string(HN_SOURCE_DIR) + "/docs/commands/migrate.md";
  for (const auto& b : hn::test::fenced_blocks(page, "text"))
    if (b.text.rfind("hnprecheck migrate  job ", 0) == 0) example = b.text;
  REQUIRE_FALSE(example.empty());
  // Run from the repository root, as docs/commands/migrate.md says, so the
  // paths match.
  auto live = hn::test::run_process(
      {"/bin/sh", "-c",
       "cd '" + std::string(HN_SOURCE_DIR) + "' && exec '" + std::string(HN_BINARY) +
           "' migrate examples/migrate/legacy/job.toml --quiet --no-color"});
  CHECK(live.exit_code == 1);
  // Only the run time differs from run to run.
  auto without_time = [](std::string s) {
    auto at = s.rfind(" in ");
    return at == std::string::npos ? s : s.substr(0, at);
  };
  CHECK(without_time(example) == without_time(live.out));
}
