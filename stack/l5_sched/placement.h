#pragma once
// Placement checks on a launcher's rank-to-host mapping, generic over what
// the groups mean: every group of ranks that must talk over a high-speed
// link (a tensor-parallel group) must lie within one topology domain, and
// hosts should carry the same number of ranks. L5 knows nothing of the
// parallel layout (L2): the caller computes the groups and passes them.
// Pure functions; no errors beyond std::invalid_argument for a rank out of
// range.

#include <map>
#include <string>
#include <vector>

namespace hn::stack::sched {

struct Domain {
  std::string name;
  std::vector<std::string> hosts;  // the node names the domain holds
};

struct GroupSpan {
  int group = 0;                     // index into the groups given
  std::vector<int> ranks;            // the group's ranks
  std::vector<std::string> hosts;    // their hosts, sorted, unique
  std::vector<std::string> domains;  // their domains; "" for a host in none
};

// The groups that do not lie within one domain (a host in no domain counts
// as a domain of its own, ""). host_of_rank[r] is rank r's host name.
std::vector<GroupSpan> groups_across_domains(const std::vector<std::string>& host_of_rank,
                                             const std::vector<std::vector<int>>& groups,
                                             const std::vector<Domain>& domains);

// Ranks per host, by host name.
std::map<std::string, int> ranks_per_host(const std::vector<std::string>& host_of_rank);

}  // namespace hn::stack::sched
