#pragma once
// Which rank pairs certify connects on a plane: not all n(n-1)/2, but ring
// neighbours plus partners at power-of-two distances, the pattern of
// recursive doubling: rank r pairs with r +- 1, 2, 4, ... (mod n). Every rank
// has O(log n) peers and the whole plane O(n log n) links, yet each rank is
// connected to the others in at most log2(n) hops, and every host's links
// are exercised against several different peers (which is what localises a
// slow host). The lower rank of a pair connects, the higher accepts.
//
// Bandwidth rounds (certify's bandwidth phase, over hosts) use the same
// pairs, split into matchings: in each round every host is in at most one
// pair, so its NIC counters around the round belong to that pair alone and
// the pair's figure is not shared with another stream of its own.

#include <utility>
#include <vector>

namespace hn::drivers::cluster {

// 1, 2, 4, ... below n (empty for n < 2).
std::vector<int> partner_distances(int n);

// The peers of `rank` in a world of n: sorted, unique, never rank itself.
std::vector<int> link_peers(int rank, int n);

// Number of distinct pairs of the pattern over n ranks.
long long link_pair_count(int n);

// The pattern's pairs (lower, higher), in a fixed order: by distance, then
// by lower end. The same on every rank.
std::vector<std::pair<int, int>> link_pairs(int n);

// The pairs split into rounds in which no rank appears twice (a matching):
// greedy edge colouring in link_pairs() order, so at most 2 * degree - 1
// rounds (O(log n)); every pair in exactly one round. Deterministic: every
// rank computes the same schedule without talking to the others.
std::vector<std::vector<std::pair<int, int>>> matching_rounds(int n);

}  // namespace hn::drivers::cluster
