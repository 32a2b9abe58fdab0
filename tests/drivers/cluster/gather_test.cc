#include "drivers/cluster/gather.h"

#include <catch2/catch.hpp>
#include <map>
#include <thread>

#include "tests/preflight/certify/store_harness.h"

using namespace hn;
using drivers::cluster::gather;
using drivers::cluster::GatherOptions;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST_CASE("gather: every rank's value, through windows smaller than the world") {
  test::StoreHarness h(12);
  for (int r = 1; r < 12; ++r) h.store(r).set("res/" + std::to_string(r), "v" + std::to_string(r));
  std::map<int, std::string> got;
  std::vector<int> ranks;
  for (int r = 1; r < 12; ++r) ranks.push_back(r);
  GatherOptions o;
  o.fan_in = 3;
  auto missing = gather(
      h.store(0), "res", ranks, Clock::now() + milliseconds(5000), [](int) { return false; },
      [&](int r, std::string&& v) { got[r] = std::move(v); }, o);
  CHECK(missing.empty());
  REQUIRE(got.size() == 11);
  CHECK(got[7] == "v7");
}

TEST_CASE(
    "gather: a stalled rank holds one slot - late values still arrive - the rest by the deadline") {
  test::StoreHarness h(6);
  std::vector<int> ranks = {1, 2, 3, 4, 5};
  for (int r : {2, 3, 5}) h.store(r).set("res/" + std::to_string(r), "x");
  std::thread late([&] {
    std::this_thread::sleep_for(milliseconds(300));
    h.store(4).set("res/4", "late");
  });
  std::map<int, std::string> got;
  GatherOptions o;
  o.fan_in = 2;
  o.slice = milliseconds(50);
  const auto t0 = Clock::now();
  auto missing = gather(
      h.store(0), "res", ranks, t0 + milliseconds(1200), [](int) { return false; },
      [&](int r, std::string&& v) { got[r] = std::move(v); }, o);
  late.join();
  const auto took = Clock::now() - t0;
  CHECK(missing == std::vector<int>{1});
  CHECK(got.size() == 4);
  CHECK(got[4] == "late");
  CHECK(took >= milliseconds(1150));
  CHECK(took < milliseconds(3000));
}

TEST_CASE("gather: a rank reported lost is not waited for") {
  test::StoreHarness h(4);
  h.store(1).set("res/1", "a");
  const auto t0 = Clock::now();
  auto missing = gather(
      h.store(0), "res", {1, 2, 3}, t0 + milliseconds(10000), [](int r) { return r >= 2; },
      [](int, std::string&&) {});
  CHECK(missing == std::vector<int>{2, 3});
  CHECK(Clock::now() - t0 < milliseconds(2000));
}
