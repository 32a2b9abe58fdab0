// bench/membw_bound: the three minimal-traffic kernels run and check their
// result, with and without fresh inputs, and the check can fail: with a store
// skipped (--fault, tests only) the probe reports wrong elements and exits 1.
// Bad usage is exit 2.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;

namespace {
const std::string kProbe = HN_MEMBW_BOUND;
}

TEST_CASE("membw_bound runs every kernel and reports the fastest as the bound") {
  for (const char* ranks : {"2", "3"})
    for (bool fresh : {false, true}) {
      INFO(ranks << " ranks, fresh " << fresh);
      hn::test::TempDir dir;
      const std::string json_path = dir.path() + "/bound.json";
      std::vector<std::string> args{kProbe,   "--ranks",  ranks, "-b", "64K",  "-e",
                                    "256K",   "--iters", "2",   "--warmup", "1", "--json",
                                    json_path};
      if (fresh) args.push_back("--fresh");
      auto r = run_process(args);
      INFO(r.out << r.err);
      REQUIRE(r.exit_code == 0);
      auto j = nlohmann::json::parse(std::ifstream(json_path));
      CHECK(j["fresh_inputs"] == fresh);
      REQUIRE(j["rows"].size() == 2);
      for (const auto& row : j["rows"]) {
        CHECK(row["wrong"] == 0);
        const double push = row["push_gbps"], single = row["single_gbps"],
                     stream = row["stream_gbps"], best = row["busbw_gbps"];
        CHECK(push > 0);
        CHECK(single > 0);
        CHECK(stream > 0);
        CHECK(best == Approx(std::max({push, single, stream})));
      }
    }
}

TEST_CASE("membw_bound catches a skipped store in every kernel") {
  for (const char* kernel : {"push", "single", "stream"})
    for (const char* fresh : {"", "--fresh"}) {
      INFO(kernel << " " << fresh);
      std::vector<std::string> args{kProbe,   "--ranks", "2",      "-b",   "64K",  "-e",
                                    "64K",    "--iters", "2",      "--warmup", "1", "--scheme",
                                    kernel,   "--fault", kernel};
      if (*fresh) args.push_back(fresh);
      auto r = run_process(args);
      INFO(r.out << r.err);
      CHECK(r.exit_code == 1);
      // The last piece (4096 floats) of the block a rank gets from its peer
      // is never written.
      CHECK(r.out.find(" 4096 ") != std::string::npos);
    }
}

TEST_CASE("membw_bound rejects bad usage with exit 2") {
  for (std::vector<std::string> args : {std::vector<std::string>{"--scheme", "sideways"},
                                        {"--fault", "pull"},
                                        {"--ranks", "0"},
                                        {"--bogus", "1"}}) {
    args.insert(args.begin(), kProbe);
    auto r = run_process(args);
    INFO(args[1]);
    CHECK(r.exit_code == 2);
  }
}
