// bench/membw_bound: both schemes run and check their result, and the check
// can fail: with a copy skipped (--fault, tests only) the probe reports
// wrong elements and exits 1. Bad usage is exit 2.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;

namespace {
const std::string kProbe = HN_MEMBW_BOUND;
}

TEST_CASE("membw_bound measures pull and push and reports the faster as the bound") {
  for (const char* ranks : {"2", "3"}) {
    INFO(ranks << " ranks");
    hn::test::TempDir dir;
    const std::string json_path = dir.path() + "/bound.json";
    auto r = run_process({kProbe, "--ranks", ranks, "-b", "64K", "-e", "256K", "--iters", "2",
                          "--warmup", "1", "--json", json_path});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(std::ifstream(json_path));
    REQUIRE(j["rows"].size() == 2);
    for (const auto& row : j["rows"]) {
      CHECK(row["wrong"] == 0);
      const double pull = row["pull_gbps"], push = row["push_gbps"], best = row["busbw_gbps"];
      CHECK(pull > 0);
      CHECK(push > 0);
      CHECK(best == Approx(std::max(pull, push)));
    }
  }
}

TEST_CASE("membw_bound catches a skipped copy in either scheme") {
  for (const char* scheme : {"pull", "push"}) {
    INFO(scheme);
    auto r = run_process({kProbe, "--ranks", "2", "-b", "64K", "-e", "64K", "--iters", "2",
                          "--warmup", "1", "--scheme", scheme, "--fault", scheme});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    // A quarter of the block a rank gets from its peer is left at -1.
    CHECK(r.out.find(" 4096 ") != std::string::npos);
  }
}

TEST_CASE("membw_bound rejects bad usage with exit 2") {
  for (std::vector<std::string> args : {std::vector<std::string>{"--scheme", "sideways"},
                                        {"--fault", "both"},
                                        {"--ranks", "0"},
                                        {"--bogus", "1"}}) {
    args.insert(args.begin(), kProbe);
    auto r = run_process(args);
    INFO(args[1]);
    CHECK(r.exit_code == 2);
  }
}
