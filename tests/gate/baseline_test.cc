#include "gate/baseline_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "gate/run_input.h"
#include "tests/gate/fixture.h"

using namespace hn::gate;
using hn::reports::Status;

namespace {

Baseline sample() {
  std::vector<Run> runs = {
      read_run(hn::test::gate_fixture("certificate-demo.json"), "cert.json", builtin_figures()),
      read_run(hn::test::gate_fixture("bench-shm.json"), "bench.json", builtin_figures()),
      read_run(hn::test::gate_fixture("node-vm.json"), "node.json", builtin_figures()),
      read_run(hn::test::gate_fixture("snapshot-vm.yaml"), "snap.yaml", builtin_figures()),
  };
  return build_baseline(runs, "0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f", "2026-12-01T10:00:00.000Z",
                        "0.1.0");
}

std::string error_of(const std::string& text) {
  try {
    baseline_from_json(text, "base.json");
  } catch (const hn::compat::InputError& e) {
    return e.what();
  }
  FAIL("no error");
  return "";
}

}  // namespace

TEST_CASE(
    "baseline: every run recorded, every figure with its runs, every check, one state per host") {
  Baseline b = sample();
  REQUIRE(b.runs.size() == 4);
  CHECK(b.runs[0].kind == RunKind::kCertificate);
  CHECK(b.runs[3].host == "vm");
  CHECK(b.metrics.size() == 5 + 12 + 1);
  CHECK(b.checks.size() == 3 + 7);
  REQUIRE(b.states.size() == 1);
  CHECK(b.states[0].run == 3);
  for (const auto& m : b.metrics)
    if (m.measurement.name == "storage.p99" &&
        m.measurement.labels.at("condition") == "under_load") {
      CHECK(m.values.empty());
      CHECK(m.null_runs == std::vector<int>{0});
      CHECK_FALSE(m.summary());
    }
}

TEST_CASE("baseline JSON round-trips, and the derived figures are written") {
  Baseline b = sample();
  const std::string text = baseline_to_json(b);
  Baseline back = baseline_from_json(text, "base.json");
  CHECK(baseline_to_json(back) == text);
  auto doc = nlohmann::json::parse(text);
  CHECK(doc["schema"] == "hnprecheck.baseline");
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["statistics"]["mad_scale"] == 1.4826);
  bool saw = false;
  for (const auto& m : doc["metrics"])
    if (m["name"] == "collective.busbw") {
      saw = true;
      CHECK(m["centre"] == 11.82);
      CHECK(m["spread"] == 0);
      CHECK(m["n"] == 1);
      CHECK(m["runs"] == nlohmann::json::array({0}));
    }
  CHECK(saw);
}

TEST_CASE("several runs of one figure: median, scaled MAD and where each value came from") {
  std::vector<Run> runs;
  const std::string base = hn::test::gate_fixture("bench-shm.json");
  for (double t : {10.0, 11.0, 12.0, 13.0, 100.0}) {
    std::string text = base;
    char v[32];
    std::snprintf(v, sizeof v, "%.1f", t);
    text.replace(text.find("11.4202"), 7, v);
    runs.push_back(read_run(text, "b" + std::string(v) + ".json", builtin_figures()));
  }
  Baseline b = build_baseline(runs, "0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f",
                              "2026-12-01T10:00:00.000Z", "0.1.0");
  const BaselineMetric* time = nullptr;
  for (const auto& m : b.metrics)
    if (m.measurement.name == "bench.time" && m.measurement.labels.at("bytes") == "32768")
      time = &m;
  REQUIRE(time);
  CHECK(time->values == std::vector<double>{10, 11, 12, 13, 100});
  CHECK(time->runs == std::vector<int>{0, 1, 2, 3, 4});
  auto s = time->summary();
  CHECK(s->centre == 12);
  CHECK(s->spread == Approx(1.4826));  // median(|x-12|) = 1: the outlier 100 does not widen it
}

TEST_CASE("baseline reader: strict, naming the field") {
  const std::string good = baseline_to_json(sample());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    REQUIRE(t.find(from) != std::string::npos);
    return t.replace(t.find(from), from.size(), to);
  };
  CHECK(error_of("{").find("base.json:1:2: not valid JSON") == 0);  // where, too
  CHECK(error_of(with("\"schema_version\": 1", "\"schema_version\": 2"))
            .find("schema_version: is 2; this hnprecheck reads versions 1 to 1") !=
        std::string::npos);
  CHECK(error_of(with("\"hnprecheck.baseline\"", "\"hnprecheck.report\"")).find("this is a run") !=
        std::string::npos);
  CHECK(error_of(with("\"runs\": [\n        0\n      ]", "\"runs\": [\n        7\n      ]"))
            .find(".runs[0]: run index 7 is not one of the 4 runs") != std::string::npos);
  CHECK(error_of(with("\"better\": \"higher\"", "\"better\": \"sideways\"")).find(".better") !=
        std::string::npos);
  CHECK(error_of(with("\"status\": \"PASS\"", "\"status\": \"OK\"")).find("statuses[0].status") !=
        std::string::npos);
  CHECK(error_of(with("\"id\": \"0b7c5f3e-8d2a-4c1e-9f60-1a2b3c4d5e6f\"", "\"id\": \"base-1\""))
            .find("id: 'base-1' is not a UUID") != std::string::npos);
  CHECK(error_of(with("hostname: vm", "hostname: other")).find("snapshots[0].host") !=
        std::string::npos);
}
