#include "gate/run_input.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/gate/fixture.h"

using namespace hn::gate;
using hn::reports::Better;
using hn::reports::Layer;
using hn::reports::Status;

namespace {

const Figure& figure(const Run& r, const std::string& identity) {
  for (const auto& f : r.figures)
    if (hn::reports::identity(f.measurement) == identity) return f;
  FAIL("no figure " << identity);
  throw;
}

std::string error_of(const std::string& text) {
  try {
    read_run(text, "in.json", builtin_figures());
  } catch (const hn::compat::InputError& e) {
    return e.what();
  }
  FAIL("no error for " << text);
  return "";
}

}  // namespace

TEST_CASE("a certificate: its figures with their stated directions, its findings as checks") {
  Run r = read_run(hn::test::gate_fixture("certificate-demo.json"), "cert.json", builtin_figures());
  CHECK(r.info.kind == RunKind::kCertificate);
  CHECK(r.info.source == "cert.json");
  CHECK(r.info.sha256.size() == 64);
  CHECK(r.info.what == "certificate of demo: certified, 4 rank(s) on 2 host(s)");
  REQUIRE(r.figures.size() == 5);  // the metrics array only, not the findings' metrics
  const Figure& bus = figure(r, "collective.busbw{bytes=67108864,op=allreduce,plane=param0}");
  CHECK(bus.measurement.value == 11.82);
  CHECK(bus.measurement.better == Better::kHigher);
  CHECK(bus.stated);
  CHECK(bus.layer == Layer::kL3);
  const Figure& p99 =
      figure(r, "storage.p99{condition=alone,mount=/mnt/shared,workload=sync_write}");
  CHECK(p99.measurement.better == Better::kLower);
  CHECK(p99.layer == Layer::kL7);
  CHECK(std::isnan(
      figure(r, "storage.p99{condition=under_load,mount=/mnt/shared,workload=sync_write}")
          .measurement.value));
  CHECK(figure(r, "nic.tx_bytes{host=node0,nic=ens1f0}").measurement.better == Better::kNone);
  REQUIRE(r.checks.size() == 3);
  CHECK(r.checks[2].code == "HW-TEMP");
  CHECK(r.checks[2].entity == "node1 thermal_zone0");
  CHECK(r.checks[2].status == Status::kWarn);
  CHECK(r.checks[2].host.empty());
}

TEST_CASE("bench JSON: one figure per row and field, directions from the table") {
  Run r = read_run(hn::test::gate_fixture("bench-shm.json"), "bench.json", builtin_figures());
  CHECK(r.info.kind == RunKind::kBench);
  CHECK(r.info.what == "bench allreduce, 2 rank(s), shm");
  CHECK(r.figures.size() == 3 * 4);
  const std::string labels =
      "{algorithm=auto,bytes=32768,dtype=f32,op=allreduce,ranks=2,redop=sum,transport=shm}";
  const Figure& bus = figure(r, "bench.busbw" + labels);
  CHECK(bus.measurement.better == Better::kHigher);
  CHECK(bus.measurement.unit == "GB/s");
  CHECK(figure(r, "bench.time" + labels).measurement.better ==
        Better::kNone);  // busbw judges the row
  CHECK(figure(r, "bench.algbw" + labels).measurement.better == Better::kNone);
  CHECK(figure(r, "bench.wrong" + labels).measurement.value == 0);
  CHECK(r.checks.empty());
}

TEST_CASE(
    "bench JSON: an unknown row field is kept without a direction, -1 wrong is not measured") {
  std::string text = hn::test::gate_fixture("bench-shm.json");
  const std::string from = "\"wrong\": 0\n    },\n    {\n      \"algbw_gbps\": 2.869";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(),
               "\"wrong\": -1, \"time_p99_us\": 12.5\n    },\n    {\n      \"algbw_gbps\": 2.869");
  Run r = read_run(text, "bench.json", builtin_figures());
  const std::string labels =
      "{algorithm=auto,bytes=1024,dtype=f32,op=allreduce,ranks=2,redop=sum,transport=shm}";
  const Figure& p99 = figure(r, "bench.time_p99_us" + labels);
  CHECK_FALSE(p99.stated);
  CHECK(std::isnan(figure(r, "bench.wrong" + labels).measurement.value));
}

TEST_CASE("a node report: checks by host, metrics as figures from the table") {
  Run r = read_run(hn::test::gate_fixture("node-vm.json"), "node.json", builtin_figures());
  CHECK(r.info.kind == RunKind::kReport);
  CHECK(r.info.host == "vm");
  CHECK(r.checks.size() == 7);
  for (const auto& c : r.checks) CHECK(c.host == "vm");
  const Figure& mem = figure(r, "hw-memory.memory_available{entity=memory,host=vm}");
  CHECK(mem.measurement.unit == "GiB");
  CHECK(mem.measurement.better == Better::kNone);  // the table: depends on the moment
  CHECK(mem.stated);
  CHECK(mem.layer == Layer::kL7);
}

TEST_CASE("a snapshot: the node state, no figures") {
  Run r = read_run(hn::test::gate_fixture("snapshot-vm.yaml"), "snap.yaml", builtin_figures());
  CHECK(r.info.kind == RunKind::kSnapshot);
  CHECK(r.info.host == "vm");
  REQUIRE(r.state);
  CHECK(r.state->host == "vm");
  CHECK(r.figures.empty());
}

TEST_CASE("what is not a run is refused, naming the file and the field") {
  CHECK(error_of("{\"schema\": \"hnprecheck.baseline\"}")
            .find("in.json: schema: this is a baseline") == 0);
  CHECK(error_of("{\"schema\": \"other\"}").find("in.json: schema: 'other' is not a run") == 0);
  CHECK(error_of("{\"a\": 1}").find("is not a run") != std::string::npos);
  CHECK(error_of("{\"a\": ").find("not valid JSON") != std::string::npos);
  CHECK(error_of("[1, 2]").find("must be an object") != std::string::npos);
  CHECK(error_of("version: 1\nplanes: []\n").find("is not a run") != std::string::npos);
  std::string cert = hn::test::gate_fixture("certificate-demo.json");
  CHECK(error_of(cert.replace(cert.find("\"schema_version\": 1"), 19, "\"schema_version\": 3"))
            .find("schema_version: is 3; this hnprecheck reads versions 1 to 2") !=
        std::string::npos);
  cert = hn::test::gate_fixture("certificate-demo.json");
  cert.replace(cert.find("\"better\": \"higher\""), 18, "\"better\": \"up\"");
  CHECK(error_of(cert).find("metrics[0].better") != std::string::npos);
  cert = hn::test::gate_fixture("certificate-demo.json");
  cert.replace(cert.find("\"status\": \"WARN\""), 16, "\"status\": \"BAD\"");
  CHECK(error_of(cert).find("findings[2].status") != std::string::npos);
  std::string bench = hn::test::gate_fixture("bench-shm.json");
  bench.replace(bench.find("\"time_us\": 11.4202"), 18, "\"time_us\": \"fast\"");
  // Every error names the file first (a review once saw "gate: : rows[0]...").
  CHECK(error_of(bench).find("in.json: rows[1].time_us: must be a number") == 0);
  std::string report = hn::test::gate_fixture("node-vm.json");
  report.replace(report.find("\"command\": \"node\""), 17, "\"command\": \"gate\"");
  CHECK(error_of(report).find("is the report of `gate` itself") != std::string::npos);
}

TEST_CASE("the figures table is well formed and the embedded copy parses") {
  const FigureTable& t = builtin_figures();
  CHECK(t.bench_row("busbw_gbps"));
  CHECK(t.bench_row("time_us"));
  CHECK(t.finding_row("STOR-JITTER-LATENCY", "p99")->better == Better::kLower);
  CHECK(t.finding_row("STOR-JITTER-P99", "p99")->better ==
        Better::kNone);  // judged once, not twice
  CHECK(t.finding_row("HW-NIC-SPEED", "speed")->better == Better::kHigher);
  CHECK(t.finding_row("NO-SUCH-CODE", "x") == nullptr);
  CHECK_THROWS_AS(parse_figure_table("version = 1\n[[bench]]\nfield = \"x\"\n", "t.toml"),
                  hn::compat::InputError);
  CHECK_THROWS_AS(
      parse_figure_table(
          "version = 1\n[[finding]]\ncode = \"A\"\nmetric = \"b\"\nbetter = \"up\"\nwhy = \"w\"\n",
          "t.toml"),
      hn::compat::InputError);
}

TEST_CASE("negative bandwidths, times and counts are bad input") {
  std::string bench = hn::test::gate_fixture("bench-shm.json");
  bench.replace(bench.find("\"time_us\": 11.4202"), 18, "\"time_us\": -11.42");
  CHECK(error_of(bench).find("rows[1].time_us: is -11.42: a bench figure cannot be negative") !=
        std::string::npos);
  std::string cert = hn::test::gate_fixture("certificate-demo.json");
  cert.replace(cert.find("\"value\": 11.82"), 14, "\"value\": -11.82");
  CHECK(error_of(cert).find("metrics[0].value") != std::string::npos);
}

TEST_CASE("bench JSON and certificates carry the machine they measured on") {
  std::string bench = hn::test::gate_fixture("bench-shm.json");
  const auto at = bench.find('{') + 1;
  bench.insert(at, R"("machine": {"host": "n1", "cpu": "AMD EPYC", "kernel": "6.1.0",
    "nics": [{"name": "eth0", "driver": "mlx5_core", "speed_mbps": 100000}]},)");
  Run r = read_run(bench, "bench.json", builtin_figures());
  REQUIRE(r.info.machines.size() == 1);
  CHECK(r.info.machines[0].host == "n1");
  CHECK(r.info.machines[0].nics == std::vector<std::string>{"eth0 mlx5_core 100000 Mb/s"});
  // A malformed identity is bad input naming the field, not ignored.
  std::string bad = hn::test::gate_fixture("bench-shm.json");
  bad.insert(bad.find('{') + 1, R"("machine": {"host": "n1", "cpu": 3},)");
  CHECK(error_of(bad).find("in.json: machine.cpu") == 0);
  // Older files without it are still read.
  CHECK(read_run(hn::test::gate_fixture("bench-shm.json"), "b.json", builtin_figures())
            .info.machines.empty());
}
