// `hnprecheck certify` run as a user runs it on one machine: local ranks,
// the embedded profile, the certificate and report files, bad input (exit
// 2), a profile that does not match the job (exit 2), a run cut by
// --timeout (exit 3), and ranks started by hand the way a Kubernetes
// indexed job or torchrun starts them.

#include <catch2/catch.hpp>

#include <future>
#include <nlohmann/json.hpp>
#include <set>

#include <unistd.h>

#include "reports/certificate.h"
#include "tests/support/json_schema.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_hnprecheck;
using hn::test::TempDir;
using nlohmann::json;

namespace {

// Small and quick: the machine is shared.
const std::vector<std::string> kQuick = {"--sizes", "64K", "--iters", "2", "--no-color"};

std::vector<std::string> args(std::vector<std::string> a) {
  a.insert(a.begin(), "certify");
  a.insert(a.end(), kQuick.begin(), kQuick.end());
  return a;
}

std::string free_rendezvous() {
  return hn::test::free_loopback_rendezvous();
}

// Read back, after checking it against the published schema.
hn::reports::Certificate certificate(const std::string& path) {
  const auto doc = nlohmann::json::parse(hn::test::read_file(path));
  const auto errors = hn::test::json_schema_errors(hn::test::certificate_schema(), doc);
  INFO(path);
  for (const auto& e : errors) FAIL_CHECK(e);
  return hn::reports::certificate_from_json(doc, path);
}

}  // namespace

TEST_CASE("certify: this machine, embedded profile, two local ranks by default") {
  TempDir dir;
  auto r = run_hnprecheck(
      args({"--certificate", dir.path() + "/c.json", "--json", dir.path() + "/r.json"}), 180);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("hnprecheck certify  host "));
  // One host: every check passed, but the links between hosts were never
  // tested, and the verdict says so.
  CHECK_THAT(r.out, Catch::Contains("verdict: partial (exit 0): 1 host(s), 2 rank(s)"));
  CHECK_THAT(r.out, Catch::Contains("not covered\n  bandwidth   every rank is on one host"));
  auto c = certificate(dir.path() + "/c.json");
  CHECK(c.verdict == hn::reports::CertVerdict::kPartial);
  REQUIRE(c.not_covered.size() == 1);
  CHECK(c.not_covered[0].what == "bandwidth");
  CHECK(c.world == 2);
  CHECK(c.launcher == "local");
  CHECK(c.profile_source == "embedded:default");
  CHECK(c.profile_sha256.size() == 64);
  REQUIRE(c.hosts.size() == 1);
  CHECK(c.hosts[0].ranks == std::vector<int>{0, 1});
  std::vector<std::string> names;
  for (const auto& p : c.phases) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"hosts", "cross_host", "links", "bandwidth",
                                          "collectives", "storage", "model", "placement"});
  int busbw = 0;
  for (const auto& m : c.metrics)
    if (m.name == "collective.busbw") {
      ++busbw;
      CHECK(m.better == hn::reports::Better::kHigher);
      CHECK(m.phase == "collectives");
    }
  CHECK(busbw == 4);  // four ops at one size
  auto report = json::parse(hn::test::read_file(dir.path() + "/r.json"));
  CHECK(report["command"] == "certify");
  CHECK(report["extra"]["certify"]["verdict"] == "partial");
  // Every host finding names its host.
  for (const auto& f : report["findings"])
    if (f.contains("host"))
      CHECK(f["entity"].get<std::string>().rfind(f["host"].get<std::string>(), 0) == 0);
}

TEST_CASE("certify: --only and --skip select phases - the others are SKIP naming why") {
  TempDir dir;
  auto r = run_hnprecheck(
      args({"--only", "links,placement", "--certificate", dir.path() + "/c.json"}), 120);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto c = certificate(dir.path() + "/c.json");
  for (const auto& p : c.phases) {
    INFO(p.name);
    if (p.name == "links" || p.name == "placement") {
      CHECK(p.status == hn::reports::Status::kPass);
    } else {
      CHECK(p.status == hn::reports::Status::kSkip);
      CHECK(p.skipped_because == "not selected (--only / --skip)");
    }
  }
}

TEST_CASE("certify: busbw is judged only against a floor - above PASS, below FAIL, none SKIP") {
  TempDir dir;
  // The embedded default's plane, with and without a floor.
  auto profile = [&](const std::string& name, const std::string& floor) {
    return dir.write(name, "version: 1\ncluster: t\nplanes:\n  - name: default\n"
                           "    type: parameter\n    nic: auto\n" +
                               floor);
  };
  struct Case {
    std::string floor;
    std::string status;
    int exit_code;
  };
  for (const Case& k : {Case{"", "SKIP", 0}, Case{"    busbw_min_gbps: 0.000001\n", "PASS", 0},
                        Case{"    busbw_min_gbps: 999999\n", "FAIL", 1}}) {
    INFO("floor: " << k.floor);
    const std::string p = profile("p.yaml", k.floor);
    auto r = run_hnprecheck(args({"--profile", p, "--only", "hosts,links,collectives", "--json",
                                  dir.path() + "/r.json"}),
                            120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == k.exit_code);
    const auto report = json::parse(hn::test::read_file(dir.path() + "/r.json"));
    int seen = 0;
    for (const auto& f : report["findings"])
      if (f["code"] == "COMM-COLL-BUSBW") {
        ++seen;
        CHECK(f["status"] == k.status);
        // The figure is recorded whether or not it was judged.
        CHECK(!f["evidence"]["busbw"].get<std::string>().empty());
      }
    CHECK(seen == 4);
    if (k.status == "FAIL")
      CHECK(report["extra"]["certify"]["verdict"] == "not_certified");
    if (k.status == "SKIP")
      CHECK_THAT(r.out, Catch::Contains("no floor to judge against"));
  }
}

TEST_CASE("certify: bad input is exit 2 before anything runs, naming the option") {
  TempDir dir;
  struct Case {
    std::vector<std::string> a;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"certify", "--only", "links,bogus"}, "unknown phase 'bogus'"},
      {{"certify", "--sizes", "0"}, "--sizes"},
      {{"certify", "--ops", "allreduce,scan"}, "unknown collective 'scan'"},
      {{"certify", "--link-timeout", "0"}, "--link-timeout"},
      {{"certify", "--layout", "tp=0"}, "--layout"},
      {{"certify", "--certificate", dir.path() + "/missing/c.json"}, "--certificate"},
      {{"certify", "--profile", dir.write("bad.yaml", "version: 1\nplanes: [{name: p}]\n")},
       "bad.yaml"},
  };
  for (const auto& c : cases) {
    auto r = run_hnprecheck(c.a, 60);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.says));
  }
}

TEST_CASE("certify: a profile that does not match the job is exit 2 on every rank") {
  TempDir dir;
  std::string p = dir.write("p.yaml", "version: 1\nnodes: [{name: no-such-host-here}]\n");
  auto r = run_hnprecheck(args({"--profile", p, "--local-ranks", "2"}), 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("none of the 1 nodes the profile declares (no-such-host-here)"));
}

TEST_CASE("certify: placement checks the layout's tensor-parallel groups against the domains") {
  TempDir dir;
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof host - 1) == 0);
  // This machine is one node in a one-node domain: tp=2 groups stay inside it.
  const std::string p =
      dir.write("p.yaml", std::string("version: 1\nnodes: [{name: ") + host +
                              "}]\ntopology:\n  domains:\n    - {name: sn0, link: hccs, nodes: [" +
                              host + "]}\nmodel:\n  layout: tp=4\n");
  auto r = run_hnprecheck(args({"--profile", p, "--local-ranks", "4", "--layout", "tp=2,dp=2",
                                "--only", "placement", "--json", dir.path() + "/r.json"}),
                          120);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto tp_finding = [](const std::string& path) {
    const json report = json::parse(hn::test::read_file(path));
    for (const auto& f : report["findings"])
      if (f["code"] == "SCHED-TP-DOMAIN") return f;
    return json();
  };
  // --layout wins over the profile's tp=4: groups [0,1] and [2,3].
  auto f = tp_finding(dir.path() + "/r.json");
  CHECK(f["status"] == "PASS");
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("2 tensor-parallel group(s) of 2"));
  // Without --layout the profile's model.layout (tp=4) is the one checked.
  auto q = run_hnprecheck(args({"--profile", p, "--local-ranks", "4", "--only", "placement",
                                "--json", dir.path() + "/q.json"}),
                          120);
  INFO(q.out << q.err);
  REQUIRE(q.exit_code == 0);
  f = tp_finding(dir.path() + "/q.json");
  CHECK(f["status"] == "PASS");
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("1 tensor-parallel group(s) of 4"));
}

TEST_CASE("certify: a layout that does not fit the job is exit 2 naming the numbers") {
  TempDir dir;
  auto r = run_hnprecheck(args({"--local-ranks", "4", "--layout", "tp=2,pp=2,dp=2"}), 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--layout"));
  CHECK_THAT(r.err, Catch::Contains("tp=2 x pp=2 x dp=2 = 8 ranks, but the job has 4"));
  const std::string p = dir.write("p.yaml", "version: 1\nmodel:\n  layout: tp=2,dp=4\n");
  auto q = run_hnprecheck(args({"--profile", p, "--local-ranks", "4"}), 120);
  INFO(q.out << q.err);
  CHECK(q.exit_code == 2);
  CHECK_THAT(q.err, Catch::Contains("model.layout"));
  CHECK_THAT(q.err, Catch::Contains("p.yaml"));
  CHECK_THAT(q.err, Catch::Contains("= 8 ranks, but the job has 4"));
}

TEST_CASE("certify: the model phase trains the job's layout under --local-ranks 4") {
  TempDir dir;
  auto r = run_hnprecheck(
      args({"--local-ranks", "4", "--only", "model", "--layout", "tp=2,dp=2", "--steps", "3",
            "--certificate", dir.path() + "/c.json", "--json", dir.path() + "/r.json"}),
      180);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto c = certificate(dir.path() + "/c.json");
  for (const auto& p : c.phases)
    if (p.name == "model") CHECK(p.status == hn::reports::Status::kPass);
  const json report = json::parse(hn::test::read_file(dir.path() + "/r.json"));
  std::set<std::string> passed;
  for (const auto& f : report["findings"])
    if (f["status"] == "PASS") passed.insert(f["code"].get<std::string>());
  for (const char* code : {"MODEL-LOSS", "MODEL-EQUIVALENCE", "MODEL-OPS"})
    CHECK(passed.count(code));
  CHECK_THAT(r.out, Catch::Contains("tp=2,pp=1,dp=2"));
  CHECK_THAT(r.out, Catch::Contains("over 3 steps"));
  int figures = 0;
  for (const auto& m : c.metrics) figures += m.phase == "model";
  CHECK(figures > 0);
}

TEST_CASE("certify: a layout the model cannot be split by is exit 2 naming the numbers") {
  auto r = run_hnprecheck(args({"--local-ranks", "4", "--layout", "pp=4"}), 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("model.size.layers: 2 is not divisible by pp=4"));
  auto s = run_hnprecheck(args({"--steps", "0"}), 60);
  CHECK(s.exit_code == 2);
  CHECK_THAT(s.err, Catch::Contains("--steps"));
}

TEST_CASE("certify: --timeout bounds the run - what could not run is ERROR, exit 3") {
  TempDir dir;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_hnprecheck({"certify", "--only", "collectives", "--sizes", "64M", "--iters", "200",
                           "--timeout", "1", "--certificate", dir.path() + "/c.json"},
                          120);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(s < 30);
  auto c = certificate(dir.path() + "/c.json");
  CHECK(c.verdict == hn::reports::CertVerdict::kIncomplete);
  CHECK_THAT(r.out, Catch::Contains("CERT-RUN-TIMEOUT"));
}

TEST_CASE("certify: ranks started by hand, as a Kubernetes indexed job and torchrun do") {
  const std::string rdv = free_rendezvous();
  const auto colon = rdv.rfind(':');
  struct Launch {
    const char* name;
    std::function<std::vector<std::string>(int)> env;
    std::vector<std::string> extra;
  };
  const std::vector<Launch> launches = {
      {"kubernetes",
       [](int r) { return std::vector<std::string>{"JOB_COMPLETION_INDEX=" + std::to_string(r)}; },
       {"--world-size", "2", "--rendezvous", rdv}},
      {"torchrun",
       [&](int r) {
         return std::vector<std::string>{
             "RANK=" + std::to_string(r), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
             "MASTER_PORT=" + std::to_string(std::stoi(rdv.substr(colon + 1)) + 1)};
       },
       {}},
  };
  for (const auto& l : launches) {
    SECTION(l.name) {
      TempDir dir;
      auto rank = [&](int r) {
        auto env = l.env(r);
        env.push_back("HN_TOKEN=certify-cli-test-token-0123456789abcdef");
        auto a = args({"--only", "links,collectives,placement", "--certificate",
                       dir.path() + "/c" + std::to_string(r) + ".json"});
        a.insert(a.end(), l.extra.begin(), l.extra.end());
        return run_hnprecheck(a, 120, env);
      };
      auto f0 = std::async(std::launch::async, rank, 0);
      auto f1 = std::async(std::launch::async, rank, 1);
      auto r0 = f0.get(), r1 = f1.get();
      INFO("rank 0:\n" << r0.out << r0.err << "\nrank 1:\n" << r1.out << r1.err);
      CHECK(r0.exit_code == 0);
      CHECK(r1.exit_code == 0);
      CHECK(r1.out.empty());  // only rank 0 prints the report
      auto c = certificate(dir.path() + "/c0.json");
      CHECK(c.launcher == l.name);
      CHECK(c.world == 2);
    }
  }
}

TEST_CASE("certify: the certificate schema check can fail") {
  // A real certificate passes; each corruption is caught by the validator
  // every certify test runs its certificates through.
  TempDir dir;
  auto r = run_hnprecheck(args({"--certificate", dir.path() + "/c.json", "--only", "hosts"}), 180);
  INFO(r.out << r.err);
  const auto doc = json::parse(hn::test::read_file(dir.path() + "/c.json"));
  CHECK(hn::test::json_schema_errors(hn::test::certificate_schema(), doc).empty());
  CHECK(doc["verdict"] == "partial");
  CHECK(doc["not_covered"].size() >= 6);  // every phase but hosts: not selected
  auto broken = [&](const std::function<void(json&)>& f) {
    json d = doc;
    f(d);
    return hn::test::json_schema_errors(hn::test::certificate_schema(), d);
  };
  CHECK(!broken([](json& d) { d["verdict"] = "ok"; }).empty());
  CHECK(!broken([](json& d) { d.erase("not_covered"); }).empty());
  CHECK(!broken([](json& d) { d["phases"][0]["skip_kind"] = "because"; }).empty());
  CHECK(!broken([](json& d) { d["findings"][0]["status"] = "GOOD"; }).empty());
  CHECK(!broken([](json& d) { d["metrics"].push_back({{"name", "x"}}); }).empty());
}
