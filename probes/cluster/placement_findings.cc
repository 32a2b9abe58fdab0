#include "probes/cluster/placement_findings.h"

#include "probes/netplane_view.h"
#include "reports/catalog.h"
#include "stack/l5_sched/placement.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace sched = stack::sched;

namespace {

std::string rank_list(const std::vector<int>& ranks) {
  std::vector<std::string> s;
  for (int r : ranks) s.push_back(std::to_string(r));
  return join_list(s);
}

}  // namespace

std::vector<Finding> check_placement(const formats::Profile& profile,
                                     const std::vector<std::string>& host_of_rank,
                                     const std::vector<std::vector<int>>& tp_groups,
                                     const std::string& no_groups_reason) {
  std::vector<Finding> out;
  if (profile.domains.empty()) {
    out.push_back(make_finding(
        "SCHED-TP-DOMAIN", Status::kSkip, "placement",
        {{"reason", "the profile declares no topology.domains (high-speed domains)"}}));
  } else if (tp_groups.empty()) {
    out.push_back(make_finding("SCHED-TP-DOMAIN", Status::kSkip, "placement",
                               {{"reason", no_groups_reason}}));
  } else {
    std::vector<sched::Domain> domains;
    for (const auto& d : profile.domains) domains.push_back({d.name, d.nodes});
    auto spans = sched::groups_across_domains(host_of_rank, tp_groups, domains);
    for (const auto& s : spans) {
      std::vector<std::string> doms;
      for (const auto& d : s.domains) doms.push_back(d.empty() ? "no domain" : "domain " + d);
      out.push_back(make_finding("SCHED-TP-DOMAIN", Status::kFail,
                                 "tp group " + std::to_string(s.group),
                                 {{"group", std::to_string(s.group)},
                                  {"ranks", rank_list(s.ranks)},
                                  {"domains", join_list(doms)},
                                  {"hosts", join_list(s.hosts)}}));
    }
    if (spans.empty())
      out.push_back(make_finding("SCHED-TP-DOMAIN", Status::kPass, "placement",
                                 {{"groups", std::to_string(tp_groups.size())},
                                  {"size", std::to_string(tp_groups.front().size())}}));
  }
  auto per_host = sched::ranks_per_host(host_of_rank);
  std::map<int, std::vector<std::string>> by_count;
  for (const auto& [h, n] : per_host) by_count[n].push_back(h);
  if (by_count.size() <= 1) {
    out.push_back(make_finding(
        "SCHED-RANKS-PER-HOST", Status::kPass, "placement",
        {{"hosts", std::to_string(per_host.size())},
         {"per_host", by_count.empty() ? "0" : std::to_string(by_count.begin()->first)}}));
  } else {
    std::string counts;
    for (const auto& [n, hosts] : by_count)
      counts += (counts.empty() ? "" : "; ") + std::to_string(n) + " on " + join_list(hosts);
    out.push_back(
        make_finding("SCHED-RANKS-PER-HOST", Status::kWarn, "placement", {{"counts", counts}}));
  }
  return out;
}

}  // namespace hn::probes::cluster
