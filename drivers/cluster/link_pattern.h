#pragma once
// Which rank pairs certify connects on a plane: not all n(n-1)/2, but ring
// neighbours plus partners at power-of-two distances, the pattern of
// recursive doubling: rank r pairs with r +- 1, 2, 4, ... (mod n). Every rank
// has O(log n) peers and the whole plane O(n log n) links, yet each rank is
// connected to the others in at most log2(n) hops, and every host's links
// are exercised against several different peers (which is what localises a
// slow host). The lower rank of a pair connects, the higher accepts.
//
// Bandwidth rounds use the same pairs: in the round of distance d every rank
// sends to r + d and receives from r - d at once, so each NIC sends one
// stream and receives one.

#include <vector>

namespace hn::drivers::cluster {

// 1, 2, 4, ... below n (empty for n < 2).
std::vector<int> partner_distances(int n);

// The peers of `rank` in a world of n: sorted, unique, never rank itself.
std::vector<int> link_peers(int rank, int n);

// Number of distinct pairs of the pattern over n ranks.
long long link_pair_count(int n);

}  // namespace hn::drivers::cluster
