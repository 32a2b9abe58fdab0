// examples/ci/ as users copy them: the YAML parses and has the jobs the
// README describes, every shell block passes `bash -n`, every hnprecheck
// command line in them (the comments' included) is accepted by this binary's
// option parser, and the gate lines are run for real, exactly as written, on
// an unchanged and on a regressed certificate: exit 0, then exit 1, which is
// what fails the pipeline.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

using hn::test::read_file;
using hn::test::run_process;
using hn::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kExamples = std::string(HN_SOURCE_DIR) + "/examples/ci/";
const std::string kFixtures = std::string(HN_FIXTURE_DIR) + "/gate/";

// One shell text per place a CI system runs shell: each GitHub step's run,
// each GitLab job's script, the batch script, and the comments' command lines.
struct Shell {
  std::string where;
  std::string text;
};

std::vector<Shell> shells() {
  std::vector<Shell> out;
  YAML::Node gh = YAML::LoadFile(kExamples + "github-actions.yml");
  for (const auto& job : gh["jobs"])
    for (const auto& step : job.second["steps"])
      if (step["run"])
        out.push_back({"github-actions.yml: " + step["name"].as<std::string>(),
                       step["run"].as<std::string>()});
  YAML::Node gl = YAML::LoadFile(kExamples + "gitlab-ci.yml");
  for (const auto& job : gl)
    if (job.second.IsMap() && job.second["script"]) {
      std::string text;
      for (const auto& line : job.second["script"]) text += line.as<std::string>() + "\n";
      out.push_back({"gitlab-ci.yml: " + job.first.as<std::string>(), text});
    }
  out.push_back({"slurm-nightly.sbatch", read_file(kExamples + "slurm-nightly.sbatch")});
  // Command lines shown in comments ("#   hnprecheck gate baseline ...").
  static const std::regex kComment(R"(^#\s+(hnprecheck .*)$)");
  for (const char* f : {"github-actions.yml", "gitlab-ci.yml", "slurm-nightly.sbatch"}) {
    std::istringstream in(read_file(kExamples + f));
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, kComment))
        out.push_back({std::string(f) + " (comment)", m[1].str()});
  }
  return out;
}

struct Invocation {
  std::string where;
  std::string command;  // certify, gate, ...
  std::string args;     // the rest of the line, as written (shell words)
};

// Every hnprecheck command line: continuations joined, up to `||`, `&&` or `;`.
std::vector<Invocation> invocations() {
  static const std::regex kCall(R"re((?:^|\s)(?:hnprecheck|"\$HNPRECHECK")\s+(\S+)(.*)$)re");
  std::vector<Invocation> out;
  for (const auto& s : shells()) {
    const std::string joined = std::regex_replace(s.text, std::regex("\\\\\n\\s*"), " ");
    std::istringstream in(joined);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      // A script's comments are scanned once, as comments (shells() above).
      if (line.find_first_not_of(" \t") != std::string::npos &&
          line[line.find_first_not_of(" \t")] == '#')
        continue;
      if (!std::regex_search(line, m, kCall)) continue;
      std::string rest = m[2].str();
      for (const char* end : {" || ", " && ", "; "})
        if (auto at = rest.find(end); at != std::string::npos) rest = rest.substr(0, at);
      out.push_back({s.where, m[1].str(), rest});
    }
  }
  return out;
}

// The batch script's own set-up lines a gate line relies on (the optional
// --prometheus array), as written in the script.
std::string slurm_setup() {
  std::string out;
  std::istringstream in(read_file(kExamples + "slurm-nightly.sbatch"));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("prometheus=", 0) == 0 || line.rfind("if [ -d \"$TEXTFILE\" ]", 0) == 0)
      out += line + "\n";
  return out;
}

// Runs `line` with bash in `dir`, hnprecheck on PATH and the variables the
// examples use (GitHub's step summary, the batch script's own variables).
hn::test::ProcessResult sh(const std::string& dir, const std::string& line,
                           const std::string& textfile = "/textfile") {
  const std::string bin = fs::path(HN_BINARY).parent_path().string();
  const std::string state = dir + "/state";
  return run_process(
      {"/bin/bash", "-c", "cd \"$WORK\" && " + line}, 60,
      {"WORK=" + dir, "PATH=" + bin + ":/usr/bin:/bin", "HNPRECHECK=" + std::string(HN_BINARY),
       "GITHUB_STEP_SUMMARY=" + dir + "/summary.md", "STATE=" + state, "NIGHT=2026-12-01",
       "REPORTS=" + state + "/reports/2026-12-01", "TEXTFILE=" + dir + textfile,
       "PROFILE=" + dir + "/cluster/profile.yaml"});
}

bool binary_has(const std::string& command) {
  return run_process({HN_BINARY, command, "--help"}).exit_code == 0;
}

// The certificate fixture with every figure scaled (busbw up, times down by `f`).
std::string certificate(double f) {
  json doc = json::parse(read_file(kFixtures + "certificate-demo.json"));
  for (auto& m : doc["metrics"])
    if (m["value"].is_number() && m["better"] != "none")
      m["value"] =
          m["better"] == "higher" ? m["value"].get<double>() * f : m["value"].get<double>() / f;
  return doc.dump(2);
}

}  // namespace

TEST_CASE("ci examples: the YAML parses and has the jobs the README describes") {
  YAML::Node gh = YAML::LoadFile(kExamples + "github-actions.yml");
  REQUIRE(gh["jobs"]["certify-and-gate"]["steps"].IsSequence());
  CHECK(gh["on"]["schedule"][0]["cron"].as<std::string>() == "0 2 * * *");
  bool junit = false;
  for (const auto& step : gh["jobs"]["certify-and-gate"]["steps"])
    if (step["uses"] &&
        step["uses"].as<std::string>().rfind("mikepenz/action-junit-report", 0) == 0)
      junit = true;
  CHECK(junit);
  // The JUnit action publishes a check run: the job's token needs checks: write.
  CHECK(gh["jobs"]["certify-and-gate"]["permissions"]["checks"].as<std::string>() == "write");
  YAML::Node gl = YAML::LoadFile(kExamples + "gitlab-ci.yml");
  // One job, so that a failed certification is gated too (a second job with
  // `needs:` would be skipped) and a regression can be confirmed on rerun.
  const YAML::Node job = gl["certify-and-gate"];
  REQUIRE(job.IsMap());
  CHECK(job["artifacts"]["when"].as<std::string>() == "always");
  CHECK(job["artifacts"]["reports"]["junit"][0].as<std::string>() == "certify-junit.xml");
  CHECK(job["artifacts"]["reports"]["junit"][1].as<std::string>() == "gate-junit.xml");
}

TEST_CASE("ci examples: every shell block passes bash -n") {
  TempDir dir;
  for (const auto& s : shells()) {
    INFO(s.where << ":\n" << s.text);
    auto r = run_process({"/bin/bash", "-n", dir.write("block.sh", s.text)});
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
}

TEST_CASE("ci examples: each runs certify, then gate, and publishes JUnit") {
  for (const char* f : {"github-actions.yml", "gitlab-ci.yml", "slurm-nightly.sbatch"}) {
    INFO(f);
    std::vector<std::string> order;
    for (const auto& i : invocations())
      if (i.where.rfind(f, 0) == 0 && i.where.find("(comment)") == std::string::npos)
        order.push_back(i.command);
    CHECK(order == std::vector<std::string>{"certify", "gate"});
    for (const auto& i : invocations())
      if (i.where.rfind(f, 0) == 0 && i.where.find("(comment)") == std::string::npos)
        CHECK_THAT(i.args, Catch::Contains("--junit"));
  }
}

TEST_CASE("ci examples: every gate command line is valid and runs as written") {
  TempDir dir;
  fs::create_directories(dir.path() + "/cluster");
  fs::create_directories(dir.path() + "/runs");
  fs::create_directories(dir.path() + "/state/runs");
  fs::create_directories(dir.path() + "/state/reports/2026-12-01");
  fs::create_directories(dir.path() + "/textfile");
  fs::copy_file(kExamples + "gate-rules.toml", dir.path() + "/cluster/gate-rules.toml");
  // Five good nights make the baseline the comments tell users to build.
  const double nights[] = {1.0, 1.02, 0.98, 1.01, 0.99};
  for (int i = 0; i < 5; ++i)
    dir.write("runs/night" + std::to_string(i) + ".json", certificate(nights[i]));
  int gate_lines = 0;
  for (const auto& i : invocations()) {
    if (i.command != "gate") continue;
    INFO(i.where << ": hnprecheck gate" << i.args);
    // The option parser accepts it (unknown options or bad values are exit 2).
    auto parsed = sh(dir.path(), "hnprecheck gate" + i.args + " --help");
    CHECK(parsed.exit_code == 0);
    CHECK(parsed.err.empty());
    ++gate_lines;
  }
  CHECK(gate_lines == 6);  // three gate lines and three `gate baseline` lines in comments

  // Build the baselines with the comments' own command lines.
  for (const auto& i : invocations()) {
    if (i.command != "gate" || i.args.find(" baseline ") != 0) continue;
    std::string args = i.args;
    // The batch script's comment spells the absolute state directory.
    args = std::regex_replace(args, std::regex("/var/lib/hnprecheck"), "state");
    fs::copy(dir.path() + "/runs", dir.path() + "/state/runs",
             fs::copy_options::recursive | fs::copy_options::skip_existing);
    auto r = sh(dir.path(), "hnprecheck gate" + args);
    INFO(i.where << ": " << args << "\n" << r.err);
    CHECK(r.exit_code == 0);
  }
  REQUIRE(fs::exists(dir.path() + "/cluster/baseline.json"));
  REQUIRE(fs::exists(dir.path() + "/state/baseline.json"));
  // The stored baseline of the batch script comes from the same five nights.
  fs::remove_all(dir.path() + "/state/runs");
  fs::create_directories(dir.path() + "/state/runs");

  for (double f : {1.0, 0.7}) {
    dir.write("certificate.json", certificate(f));
    dir.write("state/runs/2026-12-01.json", certificate(f));
    for (const auto& i : invocations()) {
      if (i.command != "gate" || i.args.find(" baseline ") == 0) continue;
      const bool slurm = i.where.rfind("slurm", 0) == 0;
      // The first pass of the confirm-on-rerun loop: one certificate.
      const std::string line =
          (slurm ? slurm_setup() + "runs=(\"$STATE/runs/$NIGHT.json\")\n"
                 : std::string("runs=(certificate.json)\n")) +
          "hnprecheck gate" + i.args;
      auto r = sh(dir.path(), line);
      INFO(i.where << ": " << line << "\n" << r.out << r.err);
      CHECK(r.exit_code == (f == 1.0 ? 0 : 1));  // a 30 % slower cluster fails the pipeline
      if (slurm) {
        // A login node without node_exporter's textfile directory: the
        // gate still runs and judges (no --prometheus), it does not exit 2.
        auto no_dir = sh(dir.path(), line, "/no-such-textfile-dir");
        INFO(no_dir.err);
        CHECK(no_dir.exit_code == (f == 1.0 ? 0 : 1));
      }
    }
  }
  CHECK_THAT(read_file(dir.path() + "/summary.md"), Catch::Contains("GATE-METRIC"));
  CHECK_THAT(read_file(dir.path() + "/textfile/hnprecheck-gate.prom"),
             Catch::Contains("metric=\"band_low\""));
  CHECK(fs::exists(dir.path() + "/state/reports/2026-12-01/gate.xml"));
}

TEST_CASE("ci examples: every certify command line is valid for this binary") {
  if (!binary_has("certify"))
    hn::test::skip(
        "this build has no `certify` command yet (issue 11): its command lines cannot be checked");
  for (const auto& i : invocations()) {
    if (i.command != "certify") continue;
    INFO(i.where << ": hnprecheck certify" << i.args);
    TempDir dir;
    auto parsed = sh(dir.path(), "hnprecheck certify" + i.args + " --help");
    CHECK(parsed.exit_code == 0);
  }
}

TEST_CASE("ci examples: the example rules file is valid") {
  TempDir dir;
  const std::string run = dir.write("c.json", certificate(1.0));
  auto b = run_process({HN_BINARY, "gate", "baseline", "--out", dir.path() + "/b.json", run});
  REQUIRE(b.exit_code == 0);
  auto r = run_process({HN_BINARY, "gate", "--baseline", dir.path() + "/b.json", "--rules",
                        kExamples + "gate-rules.toml", "--json", "-", run});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("rules: " + kExamples + "gate-rules.toml"));
  // Its [[check]] rule ignores the fixture's HW-TEMP warning.
  CHECK(json::parse(r.out)["extra"]["gate"]["tally"]["checks_ignored"] == 1);
}

TEST_CASE("ci examples: the GitHub step confirms a regression on rerun, and only then") {
  // The step's whole script, with `srun` a stub that writes the next
  // prepared certificate where certify would: healthy, a one-off dip, and a
  // real loss.
  std::string step;
  for (const auto& s : shells())
    if (s.where == "github-actions.yml: Certify and gate against the baseline") step = s.text;
  REQUIRE_FALSE(step.empty());
  TempDir dir;
  fs::create_directories(dir.path() + "/cluster");
  fs::create_directories(dir.path() + "/stub");
  fs::copy_file(kExamples + "gate-rules.toml", dir.path() + "/cluster/gate-rules.toml");
  std::vector<std::string> nights;
  const double scale[] = {1.0, 1.02, 0.98, 1.01, 0.99, 1.005, 1.015, 0.985, 1.025, 0.975};
  for (int i = 0; i < 10; ++i)
    nights.push_back(dir.write("night" + std::to_string(i) + ".json", certificate(scale[i])));
  std::vector<std::string> args = {HN_BINARY, "gate", "baseline", "--out",
                                   dir.path() + "/cluster/baseline.json"};
  args.insert(args.end(), nights.begin(), nights.end());
  REQUIRE(run_process(args).exit_code == 0);
  dir.write("stub/srun",
            "#!/bin/bash\n"
            "n=$(cat \"$STUB/count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$STUB/count\"\n"
            "while [ $# -gt 0 ]; do [ \"$1\" = --certificate ] && out=$2; shift; done\n"
            "cp \"$STUB/cert-$n.json\" \"$out\"\n");
  fs::permissions(dir.path() + "/stub/srun", fs::perms::owner_all);
  const std::string bin = fs::path(HN_BINARY).parent_path().string();
  auto play = [&](std::vector<double> factors) {
    fs::remove(dir.path() + "/stub/count");
    for (std::size_t i = 0; i < factors.size(); ++i)
      dir.write("stub/cert-" + std::to_string(i + 1) + ".json", certificate(factors[i]));
    auto r = run_process({"/bin/bash", "-c", "cd \"$WORK\" && " + step}, 120,
                         {"WORK=" + dir.path(), "STUB=" + dir.path() + "/stub",
                          "PATH=" + dir.path() + "/stub:" + bin + ":/usr/bin:/bin",
                          "GITHUB_STEP_SUMMARY=" + dir.path() + "/summary.md"});
    const int certs = std::stoi(read_file(dir.path() + "/stub/count"));
    return std::make_pair(r.exit_code, certs);
  };
  // Healthy: one certification, exit 0.
  CHECK(play({1.0, 1.0, 1.0}) == std::make_pair(0, 1));
  // A one-off dip: the rerun clears it (three certifications, exit 0).
  CHECK(play({0.5, 1.0, 1.0}) == std::make_pair(0, 3));
  // A real loss shows in all three: exit 1.
  CHECK(play({0.5, 0.5, 0.5}) == std::make_pair(1, 3));
}
