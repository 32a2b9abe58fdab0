// bench/idle_gap: it runs and checks every call's output, the check can fail
// (HN_IDLE_GAP_FAULT=1 drops rank 1's last write into its peer's output: the
// probe counts the elements and exits 1), a rank that exits is reported
// (exit 3) instead of waited for, and bad usage is exit 2.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tests/support/process.h"

using hn::test::run_process;

namespace {
const std::string kProbe = HN_IDLE_GAP;

nlohmann::json last_line(const std::string& out) {
  const auto start = out.rfind("\n{");  // the JSON line is the last one
  REQUIRE(start != std::string::npos);
  return nlohmann::json::parse(out.substr(start + 1));
}
}  // namespace

TEST_CASE("idle_gap reports every gap with a checked output") {
  for (const char* kind : {"compute", "sleep"}) {
    INFO(kind);
    auto r = run_process({kProbe, "524288", "3", kind, "0", "1"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = last_line(r.out);
    CHECK(j["wrong"] == 0);
    CHECK(j["gap"] == kind);
    REQUIRE(j["rows"].size() == 2);
    for (const auto& row : j["rows"]) CHECK(row["busbw_gbps"].get<double>() > 0);
  }
}

TEST_CASE("idle_gap catches a write that never landed") {
  auto r = run_process({kProbe, "524288", "2", "compute", "0"}, 60, {"HN_IDLE_GAP_FAULT=1"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  // The last 128 KiB piece of rank 1's half, in rank 0's output, every call
  // (2 timed + 5 untimed): 32768 floats each.
  CHECK(last_line(r.out)["wrong"] == 7 * 32768);
  CHECK(r.err.find("wrong elements") != std::string::npos);
}

TEST_CASE("idle_gap: a rank that exits is reported at once, never waited for") {
  // HN_IDLE_GAP_FAULT=2: rank 1 exits before its first barrier. A 60 s
  // limit on the run; the probe looks every few ms.
  auto r = run_process({kProbe, "524288", "2", "compute", "0"}, 60, {"HN_IDLE_GAP_FAULT=2"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("the other rank exited mid-run") != std::string::npos);
}

TEST_CASE("idle_gap: bad usage is exit 2 naming what was wrong") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{kProbe, "1000"}, "BYTES"},
      {{kProbe, "12x"}, "BYTES"},
      {{kProbe, "-5"}, "BYTES"},
      {{kProbe, "4294967296"}, "BYTES"},
      {{kProbe, "524288", "0"}, "CALLS"},
      {{kProbe, "524288", "2x"}, "CALLS"},
      {{kProbe, "524288", "2", "compute", "nan"}, "'nan'"},
      {{kProbe, "524288", "2", "compute", ""}, "''"},
      {{kProbe, "524288", "2", "nap"}, "'nap'"},
      {{kProbe, "524288", "2", "compute", "-1"}, "'-1'"},
  };
  for (const auto& [args, what] : cases) {
    auto r = run_process(args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(what) != std::string::npos);
  }
}
