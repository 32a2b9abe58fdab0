#include "probes/cluster/placement_findings.h"

#include <catch2/catch.hpp>

using namespace hn;
using reports::Status;

namespace {
const char* kProfile =
    "version: 1\n"
    "nodes: [{name: a}, {name: b}, {name: c}, {name: d}]\n"
    "topology:\n"
    "  domains:\n"
    "    - {name: sn0, link: hccs, nodes: [a, b]}\n"
    "    - {name: sn1, link: hccs, nodes: [c, d]}\n";
}

TEST_CASE("placement: TP groups inside one domain pass - one that straddles fails naming it") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  // 8 ranks, 2 per host, tp=4: groups {0..3} on a,b and {4..7} on c,d.
  std::vector<std::string> host_of = {"a", "a", "b", "b", "c", "c", "d", "d"};
  auto ok = probes::cluster::check_placement(p, host_of, {{0, 1, 2, 3}, {4, 5, 6, 7}}, "");
  REQUIRE(ok.size() == 2);
  CHECK(ok[0].status == Status::kPass);
  CHECK(ok[1].status == Status::kPass);
  // The launcher placed ranks round-robin: rank 2 lands on c.
  std::vector<std::string> rr = {"a", "b", "c", "d", "a", "b", "c", "d"};
  auto bad = probes::cluster::check_placement(p, rr, {{0, 1, 2, 3}, {4, 5, 6, 7}}, "");
  int fails = 0;
  for (const auto& f : bad)
    if (f.code == "SCHED-TP-DOMAIN" && f.status == Status::kFail) {
      ++fails;
      CHECK(f.evidence.at("domains") == "domain sn0, domain sn1");
      CHECK(f.evidence.at("hosts") == "a, b, c, d");
    }
  CHECK(fails == 2);
}

TEST_CASE("placement: unequal ranks per host warn - no groups or domains skip with the reason") {
  auto p = formats::parse_profile(kProfile, "p.yaml");
  auto fs = probes::cluster::check_placement(p, {"a", "a", "b"}, {}, "no tensor-parallel size");
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].status == Status::kSkip);
  CHECK_THAT(fs[0].message, Catch::Contains("no tensor-parallel size"));
  CHECK(fs[1].code == "SCHED-RANKS-PER-HOST");
  CHECK(fs[1].status == Status::kWarn);
  CHECK(fs[1].evidence.at("counts") == "1 on b; 2 on a");
  auto none = formats::parse_profile("version: 1\n", "p.yaml");
  auto s = probes::cluster::check_placement(none, {"x"}, {{0}}, "");
  CHECK(s[0].status == Status::kSkip);
  CHECK_THAT(s[0].message, Catch::Contains("no topology.domains"));
}
