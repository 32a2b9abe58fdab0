#include "drivers/cluster/link_pattern.h"

#include <algorithm>

namespace hn::drivers::cluster {

std::vector<int> partner_distances(int n) {
  std::vector<int> d;
  for (long long k = 1; k < n; k *= 2) d.push_back(static_cast<int>(k));
  return d;
}

std::vector<int> link_peers(int rank, int n) {
  std::vector<int> peers;
  for (int d : partner_distances(n)) {
    peers.push_back((rank + d) % n);
    peers.push_back(((rank - d) % n + n) % n);
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  std::erase(peers, rank);
  return peers;
}

long long link_pair_count(int n) {
  long long twice = 0;
  for (int r = 0; r < n; ++r) twice += static_cast<long long>(link_peers(r, n).size());
  return twice / 2;
}

std::vector<std::pair<int, int>> link_pairs(int n) {
  std::vector<std::pair<int, int>> out;
  for (int d : partner_distances(n))
    for (int r = 0; r < n; ++r) {
      const int p = (r + d) % n;
      out.emplace_back(std::min(r, p), std::max(r, p));
    }
  // Distance d and n - d name the same pair; keep its first appearance.
  std::vector<std::pair<int, int>> unique;
  std::vector<std::pair<int, int>> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<char> taken(sorted.size(), 0);
  for (const auto& pr : out) {
    auto i = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), pr) -
                                      sorted.begin());
    if (taken[i]) continue;
    taken[i] = 1;
    unique.push_back(pr);
  }
  return unique;
}

std::vector<std::vector<std::pair<int, int>>> matching_rounds(int n) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  std::vector<std::vector<char>> busy;  // round -> rank -> used
  for (const auto& pr : link_pairs(n)) {
    std::size_t k = 0;
    while (k < rounds.size() && (busy[k][static_cast<std::size_t>(pr.first)] ||
                                 busy[k][static_cast<std::size_t>(pr.second)]))
      ++k;
    if (k == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back(static_cast<std::size_t>(n), 0);
    }
    rounds[k].push_back(pr);
    busy[k][static_cast<std::size_t>(pr.first)] = busy[k][static_cast<std::size_t>(pr.second)] = 1;
  }
  return rounds;
}

}  // namespace hn::drivers::cluster
