// Phase 7, placement (L5): the launcher's rank-to-host mapping against the
// profile's topology domains, for the tensor-parallel groups of the job's
// layout.
#include "preflight/certify/phases.h"
#include "probes/cluster/placement_findings.h"
#include "stack/l2_framework/layout.h"

namespace hn::preflight::certify {

namespace {

using reports::Layer;

PhaseOutcome combine_placement(Coordinator& co, const std::string&,
                               const std::map<int, std::string>&) {
  const auto& o = *co.options;
  std::vector<std::string> host_of_rank;
  for (int host : co.plan.host_of) {
    const HostEntry& h = co.plan.hosts[static_cast<std::size_t>(host)];
    host_of_rank.push_back(h.node.empty() ? h.name : h.node);
  }
  std::vector<std::vector<int>> groups;
  std::string why_none;
  const int world = static_cast<int>(host_of_rank.size());
  std::string text = o.layout;
  if (text.empty() && co.profile().model && co.profile().model->layout)
    text = co.profile().model->layout->to_string();
  if (text.empty()) {
    why_none = "no parallel layout: pass --layout tp=N,pp=N,dp=N or set the profile's model.layout";
  } else {
    // It fits: rank 0 checked it before any phase (check_layout).
    groups =
        stack::framework::parse_layout(text, world).groups(stack::framework::GroupKind::kTensor);
  }
  PhaseOutcome out;
  out.findings = probes::cluster::check_placement(co.profile(), host_of_rank, groups, why_none);
  return out;
}

}  // namespace

Phase placement_phase() {
  Phase p;
  p.name = "placement";
  p.layers = {Layer::kL5};
  p.deadline = milliseconds(10000);
  p.participants = Participants::kRankZero;
  p.combine = combine_placement;
  return p;
}

}  // namespace hn::preflight::certify
