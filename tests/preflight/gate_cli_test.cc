// `hnprecheck gate` and `gate baseline` driven as a CI job runs them: exit
// codes, injected regressions caught, bad input named, and every output
// format (CTRF's baseline, Prometheus bands, the HTML page).
#include <catch2/catch.hpp>
#include <filesystem>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::read_file;
using hn::test::run_hnprecheck;
using hn::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(HN_FIXTURE_DIR) + "/gate/";

// The real bench fixture with every busbw and time scaled: run i of a
// baseline gets a deterministic +-2 % wobble, `scale` slows the 1 MiB row.
std::string bench_run(double wobble, double scale_1m = 1.0) {
  json doc = json::parse(read_file(kFixtures + "bench-shm.json"));
  for (auto& row : doc["rows"]) {
    double f = 1 + wobble;
    if (row["size"] == 1048576) f *= scale_1m;
    row["busbw_gbps"] = row["busbw_gbps"].get<double>() * f;
    row["algbw_gbps"] = row["algbw_gbps"].get<double>() * f;
    row["time_us"] = row["time_us"].get<double>() / f;
  }
  return doc.dump(2);
}

// Six baseline runs of bench and the path of the baseline built from them.
std::string bench_baseline(const TempDir& dir) {
  std::vector<std::string> args = {"gate", "baseline", "--out", dir.path() + "/base.json"};
  const double wobble[] = {-0.02, 0.01, 0.0, 0.015, -0.01, 0.02};
  for (int i = 0; i < 6; ++i)
    args.push_back(dir.write("b" + std::to_string(i) + ".json", bench_run(wobble[i])));
  auto r = run_hnprecheck(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("6 run(s) (6 bench)"));
  CHECK_THAT(r.out, Catch::Contains("figures: 12 (6 with a direction, 6 informational, 0 without"));
  return dir.path() + "/base.json";
}

json findings_of(const std::string& report_json) {
  return json::parse(report_json)["findings"];
}

std::string status_of(const json& findings, const std::string& code,
                      const std::string& entity_part) {
  for (const auto& f : findings)
    if (f["code"] == code && f["entity"].get<std::string>().find(entity_part) != std::string::npos)
      return f["status"];
  return "(none)";
}

}  // namespace

TEST_CASE("gate cli: unchanged runs pass, a 30 % slower size fails with exit 1") {
  TempDir dir;
  const std::string base = bench_baseline(dir);
  auto same = run_hnprecheck(
      {"gate", "--baseline", base, "--json", "-", dir.write("new.json", bench_run(0.005))});
  INFO(same.err);
  CHECK(same.exit_code == 0);
  json f = findings_of(same.out);
  CHECK(f.size() == 6);  // busbw and wrong per size; algbw and time are informational
  for (const auto& x : f) CHECK(x["status"] == "PASS");
  CHECK_THAT(same.err, Catch::Contains("6 judged (0 regressed, 0 improved)"));
  CHECK_THAT(same.err, Catch::Contains("6 informational"));

  auto slow = run_hnprecheck(
      {"gate", "--baseline", base, "--json", "-", dir.write("slow.json", bench_run(0.0, 0.7))});
  CHECK(slow.exit_code == 1);
  json g = findings_of(slow.out);
  CHECK(status_of(g, "GATE-METRIC", "bench.busbw{algorithm=auto,bytes=1048576") == "FAIL");
  CHECK(status_of(g, "GATE-METRIC", "bench.wrong{algorithm=auto,bytes=1048576") == "PASS");
  CHECK(status_of(g, "GATE-METRIC", "bench.busbw{algorithm=auto,bytes=32768") == "PASS");
  const json extra = json::parse(slow.out)["extra"]["gate"];
  CHECK(extra["tally"]["regressed"] == 1);
  CHECK(extra["baseline"]["runs"] == 6);
}

TEST_CASE("gate cli: a bench run of other sizes, op, ranks or transport is not comparable (exit 2)") {
  TempDir dir;
  const std::string base = bench_baseline(dir);
  json doc = json::parse(bench_run(0.0));
  doc["rows"].erase(2);  // drop the 1 MiB row
  const std::string run = dir.write("short.json", doc.dump());
  auto r = run_hnprecheck({"gate", "--baseline", base, "--json", "-", run});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("short.json") && Catch::Contains("lacks sizes it has [1048576]"));
  for (const auto& [key, value] : std::vector<std::pair<std::string, json>>{
           {"op", "allgather"}, {"ranks", 4}, {"transport", "tcp"}}) {
    json other = json::parse(bench_run(0.0));
    other[key] = value;
    const std::string path = dir.write("other-" + key + ".json", other.dump());
    auto o = run_hnprecheck({"gate", "--baseline", base, path});
    INFO(key);
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("not comparable with the baseline"));
  }
}

TEST_CASE("gate cli: a figure missing from a new certificate fails, a rules file can make it a warning") {
  TempDir dir;
  auto b = run_hnprecheck(
      {"gate", "baseline", "--out", dir.path() + "/base.json", kFixtures + "certificate-demo.json"});
  REQUIRE(b.exit_code == 0);
  json doc = json::parse(read_file(kFixtures + "certificate-demo.json"));
  REQUIRE(doc["metrics"].size() > 1);
  // collective.busbw{bytes=67108864,op=allreduce,plane=param0}
  const std::string dropped = "bytes=67108864,op=allreduce";
  doc["metrics"].erase(0);
  const std::string run = dir.write("short.json", doc.dump());
  auto r = run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--json", "-", run});
  CHECK(r.exit_code == 1);
  CHECK(status_of(findings_of(r.out), "GATE-METRIC-MISSING", dropped) == "FAIL");
  const std::string rules = dir.write("rules.toml", "version = 1\n[missing]\nmetric = \"warn\"\n");
  auto w = run_hnprecheck(
      {"gate", "--baseline", dir.path() + "/base.json", "--rules", rules, "--json", "-", run});
  CHECK(status_of(findings_of(w.out), "GATE-METRIC-MISSING", dropped) == "WARN");
}

TEST_CASE("gate cli: certificate checks and snapshot drift") {
  TempDir dir;
  auto b = run_hnprecheck({"gate", "baseline", "--out", dir.path() + "/base.json",
                           kFixtures + "certificate-demo.json", kFixtures + "snapshot-vm.yaml"});
  REQUIRE(b.exit_code == 0);
  // The same certificate and a snapshot with a changed MTU and gateway.
  auto r =
      run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--json", "-",
                      kFixtures + "certificate-demo.json", kFixtures + "snapshot-vm-changed.yaml"});
  CHECK(r.exit_code == 1);
  json f = findings_of(r.out);
  CHECK(status_of(f, "GATE-DRIFT", "vm physical/links/eth0 mtu") == "FAIL");
  CHECK(status_of(f, "GATE-DRIFT", "vm netplane/routes/table 254 default gateway") == "FAIL");
  CHECK(status_of(f, "GATE-CHECK-STILL-FAILING", "node1 thermal_zone0") == "WARN");
  CHECK(status_of(f, "GATE-CHECK", "node0 ens1f0") == "PASS");
  CHECK(status_of(f, "GATE-METRIC", "storage.p99{condition=under_load") == "SKIP");
  // Counters and free memory changed too: counted, not reported.
  CHECK(json::parse(r.out)["extra"]["gate"]["tally"]["drift_not_significant"] == 2);
  CHECK_THAT(r.err, Catch::Contains("is the same file as the baseline's run"));

  // The same snapshot again: the drift finding passes.
  auto same = run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--json", "-",
                              kFixtures + "certificate-demo.json", kFixtures + "snapshot-vm.yaml"});
  CHECK(same.exit_code == 0);
  CHECK(status_of(findings_of(same.out), "GATE-DRIFT", "vm") == "PASS");
  // No snapshot at all: the baseline's host is missing.
  auto none = run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--json", "-",
                              kFixtures + "certificate-demo.json"});
  CHECK(none.exit_code == 1);
  CHECK(status_of(findings_of(none.out), "GATE-DRIFT-MISSING", "vm") == "FAIL");
}

TEST_CASE("gate cli: a difference to review (a driver change) warns, and --strict blocks it") {
  TempDir dir;
  auto b = run_hnprecheck(
      {"gate", "baseline", "--out", dir.path() + "/base.json", kFixtures + "snapshot-vm.yaml"});
  REQUIRE(b.exit_code == 0);
  std::string snap = read_file(kFixtures + "snapshot-vm.yaml");
  const std::string from = "      driver: virtio_net\n";
  REQUIRE(snap.find(from) != std::string::npos);
  snap.replace(snap.find(from), from.size(), "      driver: e1000\n");
  const std::string changed = dir.write("snapshot-driver.yaml", snap);
  auto r =
      run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--json", "-", changed});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  json f = findings_of(r.out);
  CHECK(status_of(f, "GATE-DRIFT", "vm physical/links/eth0 driver") == "WARN");
  CHECK(json::parse(r.out)["extra"]["gate"]["tally"]["drift_review"] == 1);
  auto strict =
      run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--strict", changed});
  CHECK(strict.exit_code == 1);

  // A snapshot of a host the baseline has none of: not compared, and said so.
  auto c = run_hnprecheck({"gate", "baseline", "--out", dir.path() + "/cert.json",
                           kFixtures + "certificate-demo.json"});
  REQUIRE(c.exit_code == 0);
  auto n = run_hnprecheck({"gate", "--baseline", dir.path() + "/cert.json", "--json", "-",
                           kFixtures + "certificate-demo.json", changed});
  CHECK(status_of(findings_of(n.out), "GATE-DRIFT", "vm") == "SKIP");
}

TEST_CASE("gate cli: a check that passed in the baseline and fails now is a regression") {
  TempDir dir;
  auto b = run_hnprecheck(
      {"gate", "baseline", "--out", dir.path() + "/base.json", kFixtures + "node-vm.json"});
  REQUIRE(b.exit_code == 0);
  json node = json::parse(read_file(kFixtures + "node-vm.json"));
  for (auto& f : node["findings"])
    if (f["code"] == "HW-NIC-STATE") f["status"] = "FAIL";
  auto r = run_hnprecheck({"gate", "--baseline", dir.path() + "/base.json", "--junit", "-",
                           dir.write("node.json", node.dump())});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("name=\"GATE-CHECK-REGRESSED vm eth0\""));
  CHECK_THAT(r.out, Catch::Contains("HW-NIC-STATE regressed: PASS in the baseline, FAIL now"));
}

TEST_CASE(
    "gate cli: CTRF names the baseline, Prometheus carries value, centre and band, HTML draws "
    "them") {
  TempDir dir;
  const std::string base = bench_baseline(dir);
  const std::string id = json::parse(read_file(base))["id"];
  const std::string run = dir.write("slow.json", bench_run(0.0, 0.7));
  auto c = run_hnprecheck({"gate", "--baseline", base, "--ctrf", "-", run});
  CHECK(c.exit_code == 1);
  json ctrf = json::parse(c.out);
  CHECK(ctrf["baseline"]["reportId"] == id);
  CHECK(ctrf["baseline"]["source"] == base);
  CHECK(ctrf["baseline"]["extra"]["runs"] == "6");
  for (const auto& [k, v] : ctrf["baseline"].items())
    CHECK((k == "reportId" || k == "timestamp" || k == "source" || k == "extra"));
  CHECK(ctrf["results"]["summary"]["failed"] == 1);

  auto p = run_hnprecheck({"gate", "--baseline", base, "--prometheus", "-", run});
  for (const char* m : {"value", "centre", "spread", "band_low", "band_high"})
    CHECK_THAT(
        p.out,
        Catch::Contains(
            "hnprecheck_finding_metric{command=\"gate\",code=\"GATE-METRIC\",entity=\"bench.busbw{"
            "algorithm=auto,bytes=1048576,dtype=f32,op=allreduce,ranks=2,redop=sum,transport=shm}"
            "\",metric=\"" +
            std::string(m) + "\",unit=\"GB/s\"}"));
  CHECK_THAT(p.out, Catch::Contains("hnprecheck_findings{command=\"gate\",status=\"fail\"} 1"));

  auto h = run_hnprecheck({"gate", "--baseline", base, "--html", "-", run});
  CHECK_THAT(h.out, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(h.out, Catch::Contains("BLOCKED: 1 regression(s)"));
  for (const char* legend : {"baseline noise band", "baseline run", "new value: within the band",
                             "new value: regressed"})
    CHECK_THAT(h.out, Catch::Contains("data-legend=\"" + std::string(legend) + "\""));
  // Nothing improved, so no such series and no legend entry for it.
  CHECK_THAT(h.out, !Catch::Contains("new value: improved"));
  CHECK_THAT(h.out, Catch::Contains("<td class=\"bad\">regressed</td>"));
  // Well-formed (xmllint: scripts/install-deps.sh --test).
  auto lint =
      hn::test::run_process({"/usr/bin/xmllint", "--noout", dir.write("gate.html", h.out)}, 30);
  INFO(lint.err);
  CHECK(lint.exit_code == 0);
}

TEST_CASE("gate cli: bad input is exit 2 naming the file and the field") {
  TempDir dir;
  const std::string base = bench_baseline(dir);
  const std::string run = dir.write("new.json", bench_run(0.0));
  auto no_base = run_hnprecheck({"gate", run});
  CHECK(no_base.exit_code == 2);
  CHECK_THAT(no_base.err, Catch::Contains("--baseline: is required"));
  auto no_runs = run_hnprecheck({"gate", "--baseline", base});
  CHECK(no_runs.exit_code == 2);
  auto base_as_run = run_hnprecheck({"gate", "--baseline", base, base});
  CHECK(base_as_run.exit_code == 2);
  CHECK_THAT(base_as_run.err, Catch::Contains("schema: this is a baseline, not a run"));
  auto run_as_base = run_hnprecheck({"gate", "--baseline", run, run});
  CHECK(run_as_base.exit_code == 2);
  CHECK_THAT(run_as_base.err, Catch::Contains(run + ": schema: is missing"));
  const std::string rules =
      dir.write("rules.toml", "version = 1\n[[metric]]\nname = \"bench.*\"\nk = -2\n");
  auto bad_rules = run_hnprecheck({"gate", "--baseline", base, "--rules", rules, run});
  CHECK(bad_rules.exit_code == 2);
  CHECK_THAT(bad_rules.err,
             Catch::Contains(rules + ":4: metric[0].k: k must be a finite number >= 0"));
  auto bad_out = run_hnprecheck(
      {"gate", "--baseline", base, "--json", dir.path() + "/no/such/dir/x.json", run});
  CHECK(bad_out.exit_code == 2);
  auto missing = run_hnprecheck({"gate", "--baseline", base, dir.path() + "/nope.json"});
  CHECK(missing.exit_code == 2);
  auto mixed = run_hnprecheck(
      {"gate", "baseline", "--out", dir.path() + "/b2.json", "--junit", "x.xml", run});
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Catch::Contains("--junit: is an option of the comparison"));
  auto twice = run_hnprecheck({"gate", "baseline", "--out", dir.path() + "/b2.json", run, run});
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.err, Catch::Contains("same sha256"));
  auto no_out = run_hnprecheck({"gate", "baseline", run});
  CHECK(no_out.exit_code == 2);
  CHECK_THAT(no_out.err, Catch::Contains("--out: is required"));
}

TEST_CASE("gate cli: baseline to stdout keeps stdout parseable") {
  auto r = run_hnprecheck({"gate", "baseline", "--out", "-", kFixtures + "bench-shm.json"});
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out)["schema"] == "hnprecheck.baseline");
  CHECK_THAT(r.err, Catch::Contains("baseline -: 1 run(s) (1 bench)"));
  CHECK_THAT(r.err, Catch::Contains("fewer than 5 values"));
}

TEST_CASE("gate cli: every figure hnprecheck itself writes has a direction") {
  // What bench, node and certify write today, not fixtures: a new figure
  // without a direction (in its producer or profiles/gate/figures.toml)
  // would be GATE-METRIC-UNJUDGED in every user's gate.
  TempDir dir;
  const std::string bench = dir.path() + "/bench.json", node = dir.path() + "/node.json",
                    cert = dir.path() + "/cert.json";
  auto b = run_hnprecheck({"bench", "--local-ranks", "2", "-b", "8", "-e", "64K", "-f", "64",
                           "--iters", "2", "--warmup", "1", "--json", bench});
  REQUIRE(b.exit_code == 0);
  auto n = run_hnprecheck({"node", "--json", node});
  REQUIRE(fs::exists(node));
  auto c = run_hnprecheck({"certify", "--local-ranks", "2", "--certificate", cert, "--json",
                           dir.path() + "/certify.json"});
  INFO(c.out << c.err);
  REQUIRE(fs::exists(cert));
  auto base = run_hnprecheck({"gate", "baseline", "--out", dir.path() + "/base.json", bench, node,
                              cert, dir.path() + "/certify.json"});
  INFO(base.out << base.err);
  REQUIRE(base.exit_code == 0);
  CHECK_THAT(base.out, Catch::Contains(", 0 without a direction)"));
  // And each records the machine it measured on.
  for (const auto& path : {bench, cert}) {
    const json doc = json::parse(read_file(path));
    const json& m = doc.contains("machine") ? doc["machine"] : doc["hosts"][0]["machine"];
    CHECK_FALSE(m["kernel"].get<std::string>().empty());
    CHECK(m.contains("cpu"));
    CHECK(m["nics"].is_array());
  }
}
