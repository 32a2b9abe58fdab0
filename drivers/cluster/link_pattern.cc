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

}  // namespace hn::drivers::cluster
