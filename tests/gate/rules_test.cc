#include "gate/rules.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"

using namespace hn::gate;
using hn::compat::InputError;
using hn::reports::Better;
using hn::reports::Status;

namespace {

// The InputError's line and field for a rules text.
std::pair<int, std::string> error_of(const std::string& text) {
  try {
    parse_rules(text, "rules.toml");
  } catch (const InputError& e) {
    return {e.line(), e.field()};
  }
  FAIL("no error for:\n" << text);
  return {};
}

hn::reports::Measurement m(const std::string& name,
                           std::map<std::string, std::string> labels = {}) {
  hn::reports::Measurement x;
  x.name = name;
  x.labels = std::move(labels);
  return x;
}

}  // namespace

TEST_CASE("rules: defaults, overrides, first match wins") {
  Rules r = parse_rules(R"(version = 1
[defaults]
k = 5
min_change = 0.15
min_runs = 3

[missing]
metric = "warn"
snapshot = "warn"

[[metric]]
name = "bench.busbw"
labels = { bytes = "1048576" }
k = 8

[[metric]]
name = "bench.*"
min_change = 0.2
fallback_change = 0.4
beyond_range = true

[[check]]
code = "HW-TEMP"
ignore = true

[[drift]]
entity = "physical/links/docker*"
field = "*"
impact = "none"
why = "docker bridges come and go"
)",
                        "rules.toml");
  CHECK(r.defaults.k == 5);
  CHECK(r.defaults.min_change == 0.15);
  CHECK(r.defaults.min_runs == 3);
  CHECK(r.defaults.fallback_change == Thresholds{}.fallback_change);
  CHECK(r.metric_missing == Status::kWarn);
  CHECK(r.check_missing == Status::kFail);
  CHECK(r.snapshot_missing == Status::kWarn);

  const MetricRule* first =
      r.metric_rule(m("bench.busbw", {{"bytes", "1048576"}, {"op", "allreduce"}}));
  REQUIRE(first);
  CHECK(first->origin == "rules.toml:11");  // the [[metric]] line
  Thresholds t = r.thresholds(first);
  CHECK(t.k == 8);
  CHECK(t.min_change == 0.15);  // the default, not the second rule's: first match wins
  const MetricRule* second = r.metric_rule(m("bench.busbw", {{"bytes", "8"}}));
  REQUIRE(second);
  CHECK(r.thresholds(second).min_change == 0.2);
  CHECK(r.thresholds(second).k == 5);
  CHECK(r.thresholds(second).beyond_range);
  CHECK_FALSE(r.thresholds(first).beyond_range);  // the default: no worst-run floor
  CHECK(r.metric_rule(m("collective.busbw")) == nullptr);
  CHECK(r.thresholds(nullptr).k == 5);

  Check c{"node0", "HW-TEMP", "thermal", hn::reports::Layer::kL7, Status::kPass, ""};
  REQUIRE(r.check_rule(c));
  CHECK(r.check_rule(c)->ignore);
  REQUIRE(r.drift.size() == 1);
  CHECK(r.drift[0].impact == Impact::kNone);
  CHECK(r.drift[0].origin == "rules.toml:26");
}

TEST_CASE("rules: strict about keys, types and values, with file:line") {
  CHECK(error_of("version = 2\n") == std::make_pair(1, std::string("version")));
  CHECK(error_of("k = 4\n").second == "version");
  CHECK(error_of("version = 1\n[defaults]\nkk = 4\n") ==
        std::make_pair(3, std::string("defaults.kk")));
  CHECK(error_of("version = 1\n[defaults]\nk = -1\n") ==
        std::make_pair(3, std::string("defaults.k")));
  CHECK(error_of("version = 1\n[defaults]\nmin_change = \"ten\"\n").first == 3);
  CHECK(error_of("version = 1\n[defaults]\nmin_runs = 0\n").second == "defaults.min_runs");
  CHECK(error_of("version = 1\n[defaults]\nbeyond_range = 1\n") ==
        std::make_pair(3, std::string("defaults.beyond_range")));
  CHECK(error_of("version = 1\n[missing]\nmetric = \"ignore\"\n") ==
        std::make_pair(3, std::string("missing.metric")));
  CHECK(error_of("version = 1\n[[metric]]\nname = \"x\"\n").second ==
        "metric[0].name");  // sets nothing
  CHECK(error_of("version = 1\n[[metric]]\nname = \"x\"\nbetter = \"up\"\n") ==
        std::make_pair(4, std::string("metric[0].better")));
  CHECK(error_of("version = 1\n[[metric]]\nname = \"x\"\nk = 1\nlabel = {a = \"b\"}\n") ==
        std::make_pair(5, std::string("metric[0].label")));
  CHECK(error_of("version = 1\n[[check]]\ncode = \"X\"\n").second == "check[0].code");
  CHECK(error_of("version = 1\n[[drift]]\nentity = \"*\"\nfield = \"*\"\nimpact = \"huge\"\nwhy = "
                 "\"x\"\n") == std::make_pair(5, std::string("drift[0].impact")));
  CHECK(error_of("version = 1\n[[drift]]\nentity = \"*\"\nfield = \"*\"\nimpact = \"none\"\n")
            .second == "drift[0].why");
  CHECK(error_of("version = 1\n[defaults\n").first == 2);  // malformed TOML
  CHECK(error_of("version = 1\nextra = true\n") == std::make_pair(2, std::string("extra")));
}
