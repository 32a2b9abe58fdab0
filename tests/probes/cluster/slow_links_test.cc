// certify's link findings (probes/cluster/slow_links.h): what a confirmed,
// dismissed or unmeasured suspect becomes, the line-rate check, and SKIP
// where there is nothing to compare; on simulated clusters
// (tests/probes/cluster/link_sim.h).
#include "probes/cluster/slow_links.h"

#include <catch2/catch.hpp>

#include "tests/probes/cluster/link_sim.h"

using namespace hn::test;

TEST_CASE("slow links: a slow host is judged against the others, not a median it drags down") {
  // The case the old median missed: on 3 hosts, host c slow both ways
  // touches 4 of the 6 links, so the median of the links is its own rate.
  Sim sim(3, 0.125);
  sim.send[2] = sim.receive[2] = 0.021;
  auto o = diagnose(sim);
  auto f = o.with("COMM-LINK-SLOW", Status::kFail);
  REQUIRE(f.size() == 1);
  CHECK(f[0].host == "host2");
  CHECK(f[0].metrics.at("bandwidth").value == Approx(0.021));
  CHECK(f[0].metrics.at("expected").value == Approx(0.125));
  CHECK_THAT(f[0].message, Catch::Contains("host2 sends and receives slowly"));
  // Below half the fraction in all 4 rounds of the first stage: conclusive.
  CHECK_THAT(f[0].message, Catch::Contains("measured again 4 times each way"));
  CHECK(f[0].evidence.count("send_again_gbps"));
}

TEST_CASE("slow links: with two hosts the slow direction is a pair") {
  Sim sim(2);
  sim.pair_cap[{0, 1}] = 0.2;
  auto o = diagnose(sim);
  auto f = o.with("COMM-LINK-SLOW", Status::kFail);
  REQUIRE(f.size() == 1);
  CHECK(f[0].entity == "host0 -> host1 plane p");
  CHECK_THAT(f[0].message, Catch::Contains("cannot be told"));
}

TEST_CASE("slow links: one look is never a FAIL") {
  Sim sim(4);
  sim.send[3] = sim.receive[3] = 0.2;
  auto s = screen_links(4, sim.screening(), 0.75, 0);
  REQUIRE(!s.suspects.empty());
  // No second look arrived (the links broke, the deadline came): WARN.
  auto r = judge_links("p", names(4), s, judge_suspects(s, {}), {}, 12, "bandwidth");
  int warns = 0;
  for (const auto& f : r.findings) {
    CHECK(f.status != Status::kFail);
    if (f.code == "COMM-LINK-SLOW" && f.status == Status::kWarn) {
      ++warns;
      CHECK_THAT(f.message, Catch::Contains("one look is not a verdict"));
    }
  }
  CHECK(warns >= 1);
  // Beyond the re-measurement budget: WARN, not measured again.
  Sim two(8);
  two.send[1] = two.receive[1] = two.send[5] = two.receive[5] = 0.2;
  auto tight = screen_links(8, two.screening(), 0.75, 0, 2);
  CHECK(!tight.unconfirmable.empty());
  auto t = judge_links("p", names(8), tight,
                       judge_suspects(tight, two.again(confirm_rounds(tight, 4), 0)), {}, 4,
                       "bandwidth");
  bool budget = false;
  for (const auto& f : t.findings)
    if (f.status == Status::kWarn && f.message.find("re-measurement budget") != std::string::npos)
      budget = true;
  CHECK(budget);
}

TEST_CASE("slow links: a uniformly slow plane fails against the line rate, naming no host") {
  LineRate line{1.25, "live link speed", 0.15};  // 10 Gbit/s, at least 15 % of it
  for (int n : {2, 3, 8}) {
    Sim sim(n, 0.05);  // every link at 4 % of the line rate
    auto o = diagnose(sim, 0.75, line);
    INFO(n << " hosts\n" << all(o));
    auto f = o.with("COMM-LINK-LINE-RATE", Status::kFail);
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].message, Catch::Contains("4.0% of the 10 Gbit/s line rate"));
    CHECK(o.with("COMM-LINK-SLOW", Status::kFail).empty());
    // The same plane at 40 % passes, and says what it was held to.
    Sim ok(n, 0.5);
    auto p = diagnose(ok, 0.75, line);
    auto pass = p.with("COMM-LINK-LINE-RATE", Status::kPass);
    REQUIRE(pass.size() == 1);
    CHECK_THAT(pass[0].message, Catch::Contains("at least 15.0% expected"));
  }
  // Unknown line rate: SKIP with the reason, never a silent PASS.
  Sim sim(3);
  auto o = diagnose(sim);
  auto skip = o.with("COMM-LINK-LINE-RATE", Status::kSkip);
  REQUIRE(skip.size() == 1);
  CHECK_THAT(skip[0].message, Catch::Contains("not known"));
  // A 400 Gbit/s NIC is held to its share of 100 Gbit/s (one TCP stream).
  CHECK(line_floor({50.0, "x", 0.15}) == Approx(0.15 * 12.5));
}

TEST_CASE("slow links: nothing to compare is SKIP, never a silent PASS") {
  auto empty = screen_links(1, {}, 0.75, 0);
  auto r = judge_links("p", names(1), empty, {}, {}, 12, "bandwidth");
  REQUIRE(r.findings.size() == 2);
  for (const auto& f : r.findings) CHECK(f.status == Status::kSkip);
  auto one = screen_links(2, {{0, 1, 5.0}}, 0.75, 0);
  auto r1 = judge_links("p", names(2), one, {}, {}, 12, "bandwidth");
  CHECK(r1.findings[0].status == Status::kSkip);
  // Odd samples are ignored, not trusted.
  auto odd = screen_links(3, {{0, 0, 5.0}, {0, 1, -1}, {0, 7, 2.0}, {1, 2, 0}}, 0.75, 0);
  CHECK(odd.best.empty());
}
