#include "gate/compare.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "gate/baseline.h"
#include "gate/findings.h"

using namespace hn::gate;
using hn::reports::Better;
using hn::reports::Layer;
using hn::reports::Status;

namespace {

int g_file = 0;

Run run_with(std::vector<Figure> figures, std::vector<Check> checks = {}) {
  Run r;
  r.info.source = "run" + std::to_string(++g_file) + ".json";
  r.info.sha256 = "sha" + std::to_string(g_file);
  r.info.kind = RunKind::kCertificate;
  r.figures = std::move(figures);
  r.checks = std::move(checks);
  return r;
}

Figure fig(const std::string& name, double value, Better better = Better::kHigher,
           const std::string& unit = "GB/s", bool stated = true) {
  Figure f;
  f.measurement.name = name;
  f.measurement.labels = {{"plane", "param0"}};
  f.measurement.value = value;
  f.measurement.unit = unit;
  f.measurement.better = better;
  f.measurement.phase = "collectives";
  f.stated = stated;
  return f;
}

Baseline baseline_of(const std::vector<Run>& runs) {
  return build_baseline(runs, "00000000-0000-4000-8000-000000000000", "2026-01-01T00:00:00.000Z",
                        "test");
}

// A baseline of ten runs of one figure.
Baseline ten(const std::string& name, std::vector<double> values, Better better = Better::kHigher) {
  std::vector<Run> runs;
  for (double v : values) runs.push_back(run_with({fig(name, v, better)}));
  return baseline_of(runs);
}

const MetricResult& only(const Comparison& c) {
  REQUIRE(c.metrics.size() == 1);
  return c.metrics[0];
}

const hn::reports::Finding& finding(const std::vector<hn::reports::Finding>& fs,
                                    const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return f;
  FAIL("no finding " << code);
  throw;
}

}  // namespace

TEST_CASE("unchanged runs pass, a 20 % drop of a steady figure fails") {
  Baseline b = ten("collective.busbw", {10, 10.2, 9.9, 10.1, 10, 9.8, 10.1, 10, 10.3, 9.9});
  Comparison same = compare(b, {run_with({fig("collective.busbw", 10.05)})}, Rules{});
  CHECK(only(same).state == MetricState::kJudged);
  CHECK(only(same).judgement->outcome == Outcome::kWithin);
  auto ok = gate_findings(same);
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].code == "GATE-METRIC");
  CHECK(ok[0].status == Status::kPass);
  CHECK(ok[0].entity == "collective.busbw{plane=param0}");
  CHECK(ok[0].layer == Layer::kL3);

  Comparison slow = compare(b, {run_with({fig("collective.busbw", 8.0)})}, Rules{});
  CHECK(only(slow).judgement->outcome == Outcome::kRegressed);
  auto bad = gate_findings(slow);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].status == Status::kFail);
  CHECK(bad[0].message.find("regressed: 8.00 GB/s (-20.0%) vs baseline 10.0 GB/s") !=
        std::string::npos);
  // value, centre and band are figures of the finding (Prometheus exports them).
  CHECK(bad[0].metrics.at("value").value == 8.0);
  CHECK(bad[0].metrics.at("centre").value == 10.0);
  CHECK(bad[0].metrics.count("band_low"));
  CHECK(bad[0].metrics.count("band_high"));
}

TEST_CASE("several new runs: a regression must show in every one") {
  Baseline b = ten("collective.busbw", {10, 10.2, 9.9, 10.1, 10, 9.8, 10.1, 10, 10.3, 9.9});
  // A dip in one or two runs of three is transient; all three is a loss.
  auto one_bad =
      compare(b,
              {run_with({fig("collective.busbw", 10)}), run_with({fig("collective.busbw", 5)}),
               run_with({fig("collective.busbw", 10.1)})},
              Rules{});
  CHECK(only(one_bad).judgement->outcome == Outcome::kWithin);
  CHECK(only(one_bad).judgement->current == 10.1);  // the best run
  auto two_bad =
      compare(b,
              {run_with({fig("collective.busbw", 5)}), run_with({fig("collective.busbw", 5.5)}),
               run_with({fig("collective.busbw", 10.1)})},
              Rules{});
  CHECK(only(two_bad).judgement->outcome == Outcome::kWithin);
  auto all_bad =
      compare(b,
              {run_with({fig("collective.busbw", 5)}), run_with({fig("collective.busbw", 5.5)}),
               run_with({fig("collective.busbw", 6)})},
              Rules{});
  CHECK(only(all_bad).judgement->outcome == Outcome::kRegressed);
}

TEST_CASE("a metric missing from the new run is a finding") {
  Baseline b = ten("collective.busbw", {10, 10, 10, 10, 10});
  auto c = compare(b, {run_with({})}, Rules{});
  CHECK(only(c).state == MetricState::kMissing);
  auto f = gate_findings(c);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "GATE-METRIC-MISSING");
  CHECK(f[0].status == Status::kFail);
  CHECK(hn::reports::exit_code_for(f, false) == 1);
  // Measured only as null counts as missing too.
  auto nulls = compare(b, {run_with({fig("collective.busbw", NAN)})}, Rules{});
  CHECK(only(nulls).state == MetricState::kMissing);
  CHECK(gate_findings(nulls)[0].message.find("only as null") != std::string::npos);
  // A rule can make it a warning, never silence it.
  Rules r = parse_rules("version = 1\n[[metric]]\nname = \"collective.*\"\nmissing = \"warn\"\n",
                        "r.toml");
  auto warned = gate_findings(compare(b, {run_with({})}, r));
  CHECK(warned[0].status == Status::kWarn);
  CHECK(warned[0].evidence.at("rule") == "r.toml:2");
}

TEST_CASE("latency and bandwidth move in opposite directions") {
  std::vector<Run> runs;
  for (double v : {5.0, 5.1, 4.9, 5.0, 5.05})
    runs.push_back(
        run_with({fig("collective.busbw", 10), fig("link.latency", v, Better::kLower, "us")}));
  Baseline b = baseline_of(runs);
  auto c = compare(
      b, {run_with({fig("collective.busbw", 10), fig("link.latency", 3.0, Better::kLower, "us")})},
      Rules{});
  REQUIRE(c.metrics.size() == 2);
  CHECK(c.metrics[1].identity == "link.latency{plane=param0}");
  CHECK(c.metrics[1].judgement->outcome == Outcome::kImproved);
  auto worse = compare(
      b, {run_with({fig("collective.busbw", 10), fig("link.latency", 7.0, Better::kLower, "us")})},
      Rules{});
  CHECK(worse.metrics[1].judgement->outcome == Outcome::kRegressed);
}

TEST_CASE("direction and unit disagreements are not comparable") {
  Baseline b = ten("collective.busbw", {10, 10, 10, 10, 10});
  // The new run says lower is better for the same figure.
  auto dir = compare(b, {run_with({fig("collective.busbw", 20, Better::kLower)})}, Rules{});
  CHECK(only(dir).state == MetricState::kMismatch);
  CHECK(only(dir).detail.find("direction") != std::string::npos);
  CHECK(gate_findings(dir)[0].code == "GATE-METRIC-MISMATCH");
  CHECK(gate_findings(dir)[0].status == Status::kFail);
  // MB/s against GB/s.
  auto unit =
      compare(b, {run_with({fig("collective.busbw", 10000, Better::kHigher, "MB/s")})}, Rules{});
  CHECK(only(unit).state == MetricState::kMismatch);
  // A rule may not turn a stated direction around.
  Rules r = parse_rules("version = 1\n[[metric]]\nname = \"*\"\nbetter = \"lower\"\n", "r.toml");
  auto ruled = compare(b, {run_with({fig("collective.busbw", 10)})}, r);
  CHECK(only(ruled).state == MetricState::kMismatch);
  CHECK(only(ruled).detail.find("r.toml:2") != std::string::npos);
  // Baseline runs that disagree are refused when the baseline is built.
  CHECK_THROWS_AS(baseline_of({run_with({fig("x", 1)}), run_with({fig("x", 1, Better::kLower)})}),
                  hn::compat::InputError);
  CHECK_THROWS_AS(
      baseline_of({run_with({fig("x", 1)}), run_with({fig("x", 1, Better::kHigher, "MB/s")})}),
      hn::compat::InputError);
}

TEST_CASE("a figure with no known direction is reported, and a rule can give one") {
  std::vector<Run> runs;
  for (double v : {1.0, 1.1, 0.9, 1.0, 1.0})
    runs.push_back(run_with({fig("bench.time_min", v, Better::kNone, "us", false)}));
  Baseline b = baseline_of(runs);
  CHECK_FALSE(b.metrics[0].stated);
  auto c = compare(b, {run_with({fig("bench.time_min", 5, Better::kNone, "us", false)})}, Rules{});
  CHECK(only(c).state == MetricState::kUnjudged);
  auto f = gate_findings(c);
  CHECK(f[0].code == "GATE-METRIC-UNJUDGED");
  CHECK(f[0].status == Status::kWarn);
  Rules r = parse_rules("version = 1\n[[metric]]\nname = \"bench.time_min\"\nbetter = \"lower\"\n",
                        "r.toml");
  auto judged = compare(b, {run_with({fig("bench.time_min", 5, Better::kNone, "us", false)})}, r);
  CHECK(only(judged).judgement->outcome == Outcome::kRegressed);
}

TEST_CASE("informational, ignored and new figures") {
  std::vector<Run> runs;
  for (int i = 0; i < 5; ++i)
    runs.push_back(run_with(
        {fig("nic.tx_bytes", 1e9 + i, Better::kNone, "bytes"), fig("collective.busbw", 10)}));
  Baseline b = baseline_of(runs);
  Rules r = parse_rules("version = 1\n[[metric]]\nname = \"collective.busbw\"\nignore = true\n",
                        "r.toml");
  auto c =
      compare(b,
              {run_with({fig("nic.tx_bytes", 5, Better::kNone, "bytes"), fig("collective.busbw", 1),
                         fig("model.step_time", 3, Better::kLower, "ms")})},
              r);
  REQUIRE(c.metrics.size() == 3);
  CHECK(c.metrics[0].state == MetricState::kIgnored);  // busbw: a drop to 1 is not judged
  CHECK(c.metrics[1].state == MetricState::kInformational);
  CHECK(c.metrics[2].state == MetricState::kNew);
  auto f = gate_findings(c);
  REQUIRE(f.size() == 1);  // informational and ignored have no finding; Tally counts them
  CHECK(f[0].code == "GATE-METRIC-NEW");
  CHECK(f[0].status == Status::kSkip);
  Tally t = tally(c);
  CHECK(t.ignored == 1);
  CHECK(t.informational == 1);
  CHECK(t.new_figures == 1);
  CHECK(tally_lines(t)[0].find("1 informational") != std::string::npos);
}

TEST_CASE("checks: regressed, still failing, fixed, missing, new") {
  auto chk = [](const std::string& entity, Status s) {
    return Check{"", "HW-NIC-STATE", entity, Layer::kL7, s, "msg " + entity};
  };
  Baseline b = baseline_of(
      {run_with({}, {chk("a", Status::kPass), chk("b", Status::kFail), chk("c", Status::kFail),
                     chk("d", Status::kPass), chk("e", Status::kWarn), chk("f", Status::kSkip)}),
       run_with({}, {chk("a", Status::kPass), chk("b", Status::kPass), chk("c", Status::kFail),
                     chk("d", Status::kPass), chk("e", Status::kWarn), chk("f", Status::kSkip)})});
  auto c = compare(
      b,
      {run_with({}, {chk("a", Status::kFail), chk("b", Status::kFail), chk("c", Status::kPass),
                     chk("e", Status::kFail), chk("f", Status::kSkip), chk("g", Status::kWarn),
                     chk("h", Status::kPass)})},
      Rules{});
  std::map<std::string, CheckChange> by;
  for (const auto& r : c.checks) by[r.entity] = r.change;
  CHECK(by["a"] == CheckChange::kRegressed);     // passed, now fails
  CHECK(by["b"] == CheckChange::kStillFailing);  // failed in one baseline run already
  CHECK(by["c"] == CheckChange::kFixed);
  CHECK(by["d"] == CheckChange::kMissing);    // not judged now
  CHECK(by["e"] == CheckChange::kRegressed);  // WARN then, FAIL now
  CHECK(by["f"] == CheckChange::kNotChecked);
  CHECK(by["g"] == CheckChange::kNewFailing);
  CHECK(by["h"] == CheckChange::kNewPassing);
  auto f = gate_findings(c);
  std::map<std::string, std::pair<std::string, Status>> got;
  for (const auto& x : f) got[x.entity] = {x.code, x.status};
  CHECK(got["a"] == std::make_pair(std::string("GATE-CHECK-REGRESSED"), Status::kFail));
  CHECK(got["b"] == std::make_pair(std::string("GATE-CHECK-STILL-FAILING"), Status::kWarn));
  CHECK(got["c"] == std::make_pair(std::string("GATE-CHECK"), Status::kPass));
  CHECK(got["d"] == std::make_pair(std::string("GATE-CHECK-MISSING"), Status::kFail));
  CHECK(got["f"] == std::make_pair(std::string("GATE-CHECK"), Status::kSkip));
  CHECK(got["g"] == std::make_pair(std::string("GATE-CHECK-REGRESSED"), Status::kFail));
  CHECK(finding(f, "GATE-CHECK-REGRESSED").layer == Layer::kL7);
  // Still failing alone does not block the gate; --strict makes it.
  auto still = compare(
      b,
      {run_with({}, {chk("a", Status::kPass), chk("b", Status::kFail), chk("c", Status::kFail),
                     chk("d", Status::kPass), chk("e", Status::kWarn), chk("f", Status::kSkip)})},
      Rules{});
  auto sf = gate_findings(still);
  CHECK(hn::reports::exit_code_for(sf, false) == 0);
  CHECK(hn::reports::exit_code_for(sf, true) == 1);
  // Ignored by a rule: no finding at all.
  Rules r = parse_rules(
      "version = 1\n[[check]]\ncode = \"HW-NIC-*\"\nentity = \"a\"\nignore = true\n", "r.toml");
  auto ign = compare(b, {run_with({}, {chk("a", Status::kFail)})}, r);
  for (const auto& x : gate_findings(ign)) CHECK(x.entity != "a");
}

TEST_CASE("a run with one figure twice is refused, in a baseline and in new runs") {
  CHECK_THROWS_AS(baseline_of({run_with({fig("x", 1), fig("x", 2)})}), hn::compat::InputError);
  Baseline b = ten("x", {1, 1, 1, 1, 1});
  CHECK_THROWS_AS(compare(b, {run_with({fig("x", 1), fig("x", 2)})}, Rules{}),
                  hn::compat::InputError);
}

TEST_CASE("the same file twice in a baseline is refused") {
  Run a = run_with({fig("x", 1)});
  CHECK_THROWS_WITH(baseline_of({a, a}), Catch::Contains("same sha256"));
}

namespace {

Run bench_run(const std::string& op, std::vector<long long> sizes, double busbw = 10) {
  Run r = run_with({});
  r.info.kind = RunKind::kBench;
  for (long long s : sizes) {
    Figure f = fig("bench.busbw", busbw);
    f.measurement.labels = {{"op", op},          {"ranks", "2"},      {"transport", "shm"},
                            {"dtype", "f32"},    {"redop", "sum"},    {"algorithm", "auto"},
                            {"bytes", std::to_string(s)}};
    f.measurement.phase = "bench";
    r.figures.push_back(f);
  }
  return r;
}

Run on(Run r, const std::string& host, const std::string& kernel) {
  r.info.machines = {Machine{host, "AMD EPYC", kernel, {"eth0 virtio_net"}}};
  return r;
}

std::string input_error(const Baseline& b, const std::vector<Run>& runs) {
  try {
    compare(b, runs, Rules{});
  } catch (const hn::compat::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("incomparable bench runs are bad input, naming what differs") {
  std::vector<Run> base;
  for (int i = 0; i < 5; ++i) base.push_back(bench_run("allreduce", {1024, 1048576}));
  const Baseline b = baseline_of(base);
  CHECK(input_error(b, {bench_run("allreduce", {1024, 1048576})}).empty());
  CHECK_THAT(input_error(b, {bench_run("allgather", {1024, 1048576})}),
             Catch::Contains("measures op allgather, ranks 2") &&
                 Catch::Contains("not comparable"));
  CHECK_THAT(input_error(b, {bench_run("allreduce", {1024})}),
             Catch::Contains("lacks sizes it has [1048576]"));
  // A baseline of two bench commands: a run of either is comparable, a
  // third is not.
  std::vector<Run> two = base;
  for (int i = 0; i < 5; ++i) two.push_back(bench_run("allgather", {4096}));
  const Baseline b2 = baseline_of(two);
  CHECK(input_error(b2, {bench_run("allgather", {4096})}).empty());
  CHECK(input_error(b2, {bench_run("allreduce", {1024, 1048576})}).empty());
  CHECK_THAT(input_error(b2, {bench_run("alltoall", {4096})}),
             Catch::Contains("measures op alltoall"));
  CHECK_THAT(input_error(b2, {bench_run("allgather", {1024})}),
             Catch::Contains("lacks sizes it has [4096]"));
  // A run that shares nothing with the baseline at all.
  Run other = run_with({fig("collective.busbw.other", 1)});
  CHECK_THAT(input_error(b, {other}), Catch::Contains("shares no figure, check or snapshot"));
}

TEST_CASE("a baseline of runs that measured nothing is refused") {
  CHECK_THROWS_AS(baseline_of({run_with({})}), hn::compat::InputError);
}

TEST_CASE("the machine a run measured on is compared with the baseline's") {
  std::vector<Run> base;
  for (int i = 0; i < 5; ++i) base.push_back(on(run_with({fig("collective.busbw", 10)}), "a", "6.1"));
  const Baseline b = baseline_of(base);
  auto state = [&](Run r) { return compare(b, {std::move(r)}, Rules{}).machines.at(0); };
  CHECK(state(on(run_with({fig("collective.busbw", 10)}), "a", "6.1")).state == MachineState::kSame);
  const MachineResult k = state(on(run_with({fig("collective.busbw", 10)}), "a", "6.5"));
  CHECK(k.state == MachineState::kDiffers);
  CHECK(k.detail == "kernel 6.1 -> 6.5");
  CHECK(state(on(run_with({fig("collective.busbw", 10)}), "b", "6.1")).state ==
        MachineState::kOtherHost);
  CHECK(state(run_with({fig("collective.busbw", 10)})).state == MachineState::kUnknown);
  // Another release of the tool on the same machine is flagged too.
  Run newer = on(run_with({fig("collective.busbw", 10)}), "a", "6.1");
  newer.info.tool_version = "9.9";
  for (auto& r : base) r.info.tool_version = "0.1.0";
  const MachineResult v = compare(baseline_of(base), {newer}, Rules{}).machines.at(0);
  CHECK(v.state == MachineState::kDiffers);
  CHECK(v.detail == "hnprecheck 0.1.0 -> 9.9");
  // Findings: PASS on the same machine, WARN naming the difference.
  auto fs = gate_findings(compare(b, {on(run_with({fig("collective.busbw", 10)}), "a", "6.5")}, Rules{}));
  CHECK(finding(fs, "GATE-MACHINE").status == Status::kWarn);
  CHECK_THAT(finding(fs, "GATE-MACHINE").message, Catch::Contains("kernel 6.1 -> 6.5"));
  // A baseline whose own runs disagree says so.
  base.push_back(on(run_with({fig("collective.busbw", 10)}), "a", "6.5"));
  auto mixed = compare(baseline_of(base), {on(run_with({fig("collective.busbw", 10)}), "a", "6.1")},
                       Rules{});
  CHECK(mixed.machines.at(0).state == MachineState::kMixedBase);
}

TEST_CASE("a rule that matches nothing is reported") {
  Rules rules = parse_rules("version = 1\n[[metric]]\nname = \"no.such\"\nmin_change = 0.2\n",
                            "rules.toml");
  Baseline b = ten("collective.busbw", {10, 10, 10, 10, 10});
  auto c = compare(b, {run_with({fig("collective.busbw", 10)})}, rules);
  REQUIRE(c.unused_rules.size() == 1);
  CHECK_THAT(c.unused_rules[0], Catch::StartsWith("rules.toml:2 [[metric]] name = \"no.such\""));
  CHECK(finding(gate_findings(c), "GATE-RULE-UNUSED").status == Status::kWarn);
}

TEST_CASE("a figure the producer now shows without judging is informational, not a mismatch") {
  Baseline b = ten("collective.time", {5, 5, 5, 5, 5}, Better::kLower);
  auto c = compare(b, {run_with({fig("collective.time", 9, Better::kNone)})}, Rules{});
  CHECK(only(c).state == MetricState::kInformational);
}

TEST_CASE("an insensitive figure is said, not passed silently") {
  // Runs that vary by a factor of two cannot catch a 20 % loss.
  Baseline b = ten("collective.busbw", {10, 5, 14, 7, 12, 6, 11, 9, 13, 8});
  auto fs = gate_findings(compare(b, {run_with({fig("collective.busbw", 10)})}, Rules{}));
  CHECK(finding(fs, "GATE-METRIC").status == Status::kPass);
  CHECK(finding(fs, "GATE-METRIC-INSENSITIVE").status == Status::kWarn);
  CHECK_THAT(finding(fs, "GATE-METRIC-INSENSITIVE").message, Catch::Contains("could lose 20%"));
}
