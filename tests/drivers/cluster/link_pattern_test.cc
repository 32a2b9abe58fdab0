#include "drivers/cluster/link_pattern.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <queue>
#include <set>

using namespace hn::drivers::cluster;

namespace {

// Hops from rank 0 to every rank over the pattern's links (BFS).
int diameter_from_zero(int n) {
  std::vector<int> dist(static_cast<std::size_t>(n), -1);
  std::queue<int> q;
  dist[0] = 0;
  q.push(0);
  while (!q.empty()) {
    int r = q.front();
    q.pop();
    for (int p : link_peers(r, n))
      if (dist[static_cast<std::size_t>(p)] < 0) {
        dist[static_cast<std::size_t>(p)] = dist[static_cast<std::size_t>(r)] + 1;
        q.push(p);
      }
  }
  int worst = 0;
  for (int d : dist) {
    REQUIRE(d >= 0);  // connected
    worst = std::max(worst, d);
  }
  return worst;
}

}  // namespace

TEST_CASE("link pattern: ring neighbours plus power-of-two partners") {
  CHECK(partner_distances(1).empty());
  CHECK(partner_distances(2) == std::vector<int>{1});
  CHECK(partner_distances(8) == std::vector<int>{1, 2, 4});
  CHECK(partner_distances(9) == std::vector<int>{1, 2, 4, 8});
  CHECK(link_peers(0, 1).empty());
  CHECK(link_peers(0, 2) == std::vector<int>{1});
  CHECK(link_peers(1, 3) == std::vector<int>{0, 2});
  CHECK(link_peers(0, 8) == std::vector<int>{1, 2, 4, 6, 7});
}

TEST_CASE("link pattern: symmetric, O(n log n), every rank within log2(n) hops") {
  for (int n : {2, 3, 4, 5, 7, 8, 16, 33, 64, 100, 256, 1000, 1024}) {
    INFO("n = " << n);
    long long degree_sum = 0;
    std::size_t max_degree = 0;
    for (int r = 0; r < n; ++r) {
      auto peers = link_peers(r, n);
      max_degree = std::max(max_degree, peers.size());
      degree_sum += static_cast<long long>(peers.size());
      for (int p : peers) {
        auto back = link_peers(p, n);
        CHECK(std::binary_search(back.begin(), back.end(), r));
      }
      // Ring neighbours are always peers.
      CHECK(std::binary_search(peers.begin(), peers.end(), (r + 1) % n));
      CHECK(std::binary_search(peers.begin(), peers.end(), (r + n - 1) % n));
    }
    const double log2n = std::ceil(std::log2(n));
    CHECK(max_degree <= static_cast<std::size_t>(2 * log2n));
    CHECK(link_pair_count(n) == degree_sum / 2);
    CHECK(link_pair_count(n) <= static_cast<long long>(n * log2n));
    CHECK(diameter_from_zero(n) <= static_cast<int>(log2n));
  }
  // 1,024 ranks: 10,240 directed partner links instead of ~524,000 pairs.
  CHECK(link_pair_count(1024) < 1024 * 1023 / 2 / 40);
}

TEST_CASE("link pattern: matching rounds cover every pair once, no rank twice in a round") {
  for (int n : {2, 3, 4, 5, 7, 8, 16, 32, 33, 100, 1024}) {
    INFO("n = " << n);
    const auto pairs = link_pairs(n);
    CHECK(static_cast<long long>(pairs.size()) == link_pair_count(n));
    std::set<std::pair<int, int>> seen;
    std::size_t max_degree = 0;
    for (int r = 0; r < n; ++r) max_degree = std::max(max_degree, link_peers(r, n).size());
    const auto rounds = matching_rounds(n);
    for (const auto& round : rounds) {
      std::set<int> used;
      for (const auto& [a, b] : round) {
        CHECK(a < b);
        CHECK(used.insert(a).second);
        CHECK(used.insert(b).second);
        CHECK(seen.insert({a, b}).second);
      }
    }
    CHECK(seen.size() == pairs.size());
    // Greedy colouring: at most 2 * degree - 1 rounds, so O(log n).
    CHECK(rounds.size() >= max_degree);
    CHECK(rounds.size() <= 2 * max_degree - 1);
  }
  // The same schedule on every call (every host computes it alone).
  CHECK(matching_rounds(33) == matching_rounds(33));
  CHECK(matching_rounds(3).size() == 3);  // a triangle needs three rounds
}
