#include "probes/cluster/slow_links.h"

#include <catch2/catch.hpp>

using namespace hn::probes::cluster;
using hn::reports::Status;

namespace {

// Every directed pair of the hosts at `fast`, except what `slow` overrides.
std::vector<DirectedRate> rates(int hosts, double fast,
                                const std::map<std::pair<int, int>, double>& slow) {
  std::vector<DirectedRate> out;
  for (int a = 0; a < hosts; ++a)
    for (int b = 0; b < hosts; ++b) {
      if (a == b) continue;
      auto it = slow.find({a, b});
      out.push_back({"host" + std::to_string(a), "host" + std::to_string(b),
                     it == slow.end() ? fast : it->second});
    }
  return out;
}

std::vector<hn::reports::Finding> fails(const SlowLinkResult& r) {
  std::vector<hn::reports::Finding> out;
  for (const auto& f : r.findings)
    if (f.status == Status::kFail) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("slow links: a healthy plane passes with its median") {
  auto r = locate_slow_links("param", rates(4, 2.5, {}), 0.5, "collectives");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].status == Status::kPass);
  CHECK(r.findings[0].metrics.at("median").value == Approx(2.5));
  CHECK(r.metrics.size() == 12);  // every directed host pair
  CHECK(r.metrics[0].name == "link.bandwidth");
  CHECK(r.metrics[0].unit == "GB/s");
}

TEST_CASE("slow links: a host that sends slowly is named, with its figure") {
  // host1's NIC is shaped on egress: every link out of it is slow.
  auto r = locate_slow_links("param", rates(3, 2.0, {{{1, 0}, 0.02}, {{1, 2}, 0.03}}), 0.5,
                             "collectives");
  auto f = fails(r);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "COMM-LINK-SLOW");
  CHECK(f[0].host == "host1");
  CHECK_THAT(f[0].message, Catch::Contains("host1 sends slowly"));
  CHECK(f[0].metrics.at("bandwidth").value == Approx(0.025));
  CHECK(f[0].evidence.at("suspect") == "host1");
}

TEST_CASE("slow links: a host that receives slowly is named") {
  auto r = locate_slow_links("param", rates(4, 3.0, {{{0, 2}, 0.1}, {{1, 2}, 0.1}, {{3, 2}, 0.1}}),
                             0.5, "collectives");
  auto f = fails(r);
  REQUIRE(f.size() == 1);
  CHECK(f[0].host == "host2");
  CHECK_THAT(f[0].message, Catch::Contains("host2 receives slowly"));
}

TEST_CASE("slow links: one slow link that no host explains is named as a pair") {
  auto r = locate_slow_links("param", rates(4, 3.0, {{{0, 3}, 0.2}}), 0.5, "collectives");
  auto f = fails(r);
  REQUIRE(f.size() == 1);
  CHECK(f[0].entity == "host0 -> host3 plane param");
  CHECK(f[0].evidence.at("direction") == "pair");
}

TEST_CASE("slow links: with two hosts the slow direction is a pair") {
  auto r = locate_slow_links("param", rates(2, 3.0, {{{0, 1}, 0.1}}), 0.5, "collectives");
  auto f = fails(r);
  REQUIRE(f.size() == 1);
  CHECK_THAT(f[0].message, Catch::Contains("cannot be told"));
}

TEST_CASE("slow links: nothing to compare is SKIP, never a silent PASS") {
  auto one_host = locate_slow_links("param", {{"a", "a", 5.0}}, 0.5, "collectives");
  REQUIRE(one_host.findings.size() == 1);
  CHECK(one_host.findings[0].status == Status::kSkip);
  auto one_link = locate_slow_links("param", {{"a", "b", 5.0}}, 0.5, "collectives");
  CHECK(one_link.findings[0].status == Status::kSkip);
}

TEST_CASE("slow links: the fraction is the profile's") {
  auto data = rates(3, 2.0, {{{1, 0}, 1.2}, {{1, 2}, 1.2}});
  CHECK(fails(locate_slow_links("param", data, 0.5, "c")).empty());
  CHECK(fails(locate_slow_links("param", data, 0.8, "c")).size() == 1);
}

// Two rounds of every rank link (rank r on host r): `second` overrides the
// second round's figure of some links.
std::vector<DirectedRate> two_rounds(int hosts, double fast,
                                     const std::map<std::pair<int, int>, double>& first,
                                     const std::map<std::pair<int, int>, double>& second) {
  std::vector<DirectedRate> out;
  for (const auto* round : {&first, &second})
    for (auto r : rates(hosts, fast, *round)) {
      r.from_rank = std::stoi(r.from_host.substr(4));
      r.to_rank = std::stoi(r.to_host.substr(4));
      out.push_back(r);
    }
  return out;
}

TEST_CASE("slow links: a link's best round counts, and a link slow in every round is still named") {
  // One round of host1's links was slowed (another job's burst): the other
  // round was fast, so nothing is slow.
  auto noisy = locate_slow_links("param", two_rounds(3, 2.0, {{{1, 0}, 0.4}, {{1, 2}, 0.5}}, {}),
                                 0.5, "collectives");
  CHECK(fails(noisy).empty());
  for (const auto& m : noisy.metrics) CHECK(m.value == Approx(2.0));
  // host1's egress is shaped: every round of its links is slow.
  auto shaped = locate_slow_links(
      "param",
      two_rounds(3, 2.0, {{{1, 0}, 0.02}, {{1, 2}, 0.03}}, {{{1, 0}, 0.03}, {{1, 2}, 0.02}}), 0.5,
      "collectives");
  auto f = fails(shaped);
  REQUIRE(f.size() == 1);
  CHECK(f[0].host == "host1");
  CHECK(f[0].metrics.at("bandwidth").value == Approx(0.03));  // the best round of each link
  // Without ranks, every figure is a link of its own: the median of the
  // pair, as before.
  auto unranked = rates(3, 2.0, {{{1, 0}, 0.4}, {{1, 2}, 0.4}});
  auto more = rates(3, 2.0, {{{1, 0}, 0.4}, {{1, 2}, 0.4}});
  unranked.insert(unranked.end(), more.begin(), more.end());
  CHECK(fails(locate_slow_links("param", unranked, 0.5, "collectives")).size() == 1);
}

TEST_CASE("slow links: the links into a slow sender are its echo, not pairs of their own") {
  // host1's egress is shaped: its outgoing links crawl, and the links into
  // it are slowed too (their acknowledgements leave through the shaper).
  auto r = locate_slow_links(
      "param", rates(3, 2.0, {{{1, 0}, 0.0025}, {{1, 2}, 0.0025}, {{0, 1}, 0.036}, {{2, 1}, 0.11}}),
      0.5, "collectives");
  auto f = fails(r);
  REQUIRE(f.size() == 1);
  CHECK(f[0].host == "host1");
  CHECK_THAT(f[0].message, Catch::Contains("host1 sends slowly"));
}
