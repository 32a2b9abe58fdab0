#include "stack/l5_sched/placement.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace hn::stack::sched {

std::vector<GroupSpan> groups_across_domains(const std::vector<std::string>& host_of_rank,
                                             const std::vector<std::vector<int>>& groups,
                                             const std::vector<Domain>& domains) {
  std::map<std::string, std::string> domain_of;
  for (const auto& d : domains)
    for (const auto& h : d.hosts) domain_of.emplace(h, d.name);
  std::vector<GroupSpan> out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::set<std::string> hosts, doms;
    for (int r : groups[g]) {
      if (r < 0 || static_cast<std::size_t>(r) >= host_of_rank.size())
        throw std::invalid_argument("rank " + std::to_string(r) + " of group " + std::to_string(g) +
                                    " is not in the job");
      const std::string& h = host_of_rank[static_cast<std::size_t>(r)];
      hosts.insert(h);
      auto it = domain_of.find(h);
      doms.insert(it == domain_of.end() ? "" : it->second);
    }
    // One host is always one domain: its ranks talk over the host's own links.
    if (hosts.size() <= 1 || (doms.size() == 1 && !doms.begin()->empty())) continue;
    GroupSpan s;
    s.group = static_cast<int>(g);
    s.ranks = groups[g];
    s.hosts.assign(hosts.begin(), hosts.end());
    s.domains.assign(doms.begin(), doms.end());
    out.push_back(std::move(s));
  }
  return out;
}

std::map<std::string, int> ranks_per_host(const std::vector<std::string>& host_of_rank) {
  std::map<std::string, int> out;
  for (const auto& h : host_of_rank) ++out[h];
  return out;
}

}  // namespace hn::stack::sched
