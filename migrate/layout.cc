#include "migrate/layout.h"

namespace hn::migrate {

std::vector<std::vector<long long>> tp_groups(long long tp, long long world) {
  std::vector<std::vector<long long>> groups;
  for (long long start = 0; start < world; start += tp) {
    std::vector<long long> g;
    for (long long r = start; r < start + tp && r < world; ++r) g.push_back(r);
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace hn::migrate
