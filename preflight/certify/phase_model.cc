// Phase 6, the model step (L1, L2): the bundled model trained with the
// job's parallel layout over a communicator of every rank on the first
// parameter (or data) plane, bound to the plane's address like the
// collectives, and a checkpoint round trip on the shared mount.
// probes/model/model_phase.h does the training and the judging; this file
// resolves its options on every rank (the profile's model section with
// --layout, --steps and --checkpoint-dir over it), gives it a fresh
// communicator (a death inside the model step leaves it unusable, and the
// collectives' ones stay untouched), and gathers its findings and figures.
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "preflight/certify/message.h"
#include "preflight/certify/phases.h"
#include "preflight/certify/plane_comm.h"
#include "probes/model/model_options.h"
#include "probes/model/model_phase.h"
#include "reports/certificate.h"

namespace hn::preflight::certify {

namespace {

using nlohmann::json;
using reports::Layer;

PhasePlan plan_model(Coordinator& co) {
  PhasePlan p;
  const CertifyOptions& o = *co.options;
  const auto planes = collective_planes(co.profile());
  if (planes.empty()) {
    p.skip_kind = "not_applicable";
    p.skip_reason = "the profile declares no parameter or data plane to train over";
    return p;
  }
  const std::string& plane = planes.front()->name;
  const PlaneRecord& rec = co.planes[plane];
  if (!rec.blocked_by.empty()) {
    // A failed lower layer explains the model step's failure: do not run it.
    p.skip_reason = "the model step trains over plane " + plane + ", whose links or collectives " +
                    "failed: " + rec.blocked_by;
    return p;
  }
  if (!model_configured(o)) {
    // The default model is not split over every world (its batch over dp
    // replicas): without the user asking for a model step, a world it does
    // not fit is a SKIP that says how to run it, not bad input.
    const int world = static_cast<int>(co.plan.host_of.size());
    const std::string node = co.plan.hosts.empty() ? std::string() : co.plan.hosts.front().node;
    try {
      probes::model::resolve_model(co.profile(), model_overrides(o), world,
                                   co.profile().find_node(node));
    } catch (const compat::InputError& e) {
      p.skip_kind = "not_possible";
      p.skip_reason = std::string("the default model does not fit this job (") + e.what() +
                      "): set the profile's model section or pass --layout";
      return p;
    }
  }
  p.args = json{{"plane", plane}, {"budget_ms", o.link_budget.count()}}.dump();
  return p;
}

std::string run_model(RankState& st, const std::string& args_text, Deadline deadline) {
  const json args = parse_message(args_text);
  const CertifyOptions& o = *st.options;
  const formats::Profile& profile = *o.profile;
  // Every rank resolves the same options; its own node only matters when
  // model.planes binds a group to a plane address of this host.
  auto resolved = probes::model::resolve_model(profile, model_overrides(o), st.world,
                                               profile.find_node(st.role.node));
  const Deadline own = std::min(
      deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(resolved.options.spec.timeout_s)));
  PlaneComm c = make_plane_comm(st, args.at("plane").get<std::string>(),
                                milliseconds(args.at("budget_ms").get<long long>()), own, "model");
  auto r = probes::model::run_model_phase(*c.comm, resolved.options, own);
  std::vector<reports::Finding> findings;
  for (auto& f : r.findings)
    findings.push_back(st.rank == 0 ? std::move(f) : on_host(std::move(f), st.role.hostname));
  for (auto& m : r.measurements) m.phase = "model";
  json out = {{"findings", findings_to_json(findings)},
              {"metrics", reports::measurements_to_json(r.measurements)}};
  return out.dump();
}

PhaseOutcome combine_model(Coordinator&, const std::string&,
                           const std::map<int, std::string>& results) {
  PhaseOutcome out;
  for (const auto& [rank, text] : results) {
    const json j = parse_message(text);
    for (auto& f : findings_from_json(j.at("findings"))) out.findings.push_back(std::move(f));
    const std::string from = "rank " + std::to_string(rank);
    for (auto& m : reports::measurements_from_json(
             parse_message(j.at("metrics").get<std::string>(), from + "'s figures"), from))
      out.metrics.push_back(std::move(m));
  }
  return out;
}

}  // namespace

bool model_configured(const CertifyOptions& o) {
  return (o.profile && o.profile->model) || !o.layout.empty() || o.steps ||
         !o.checkpoint_dir.empty();
}

probes::model::ModelOverrides model_overrides(const CertifyOptions& o) {
  probes::model::ModelOverrides m;
  m.layout = o.layout;
  m.steps = o.steps;
  m.checkpoint_dir = o.checkpoint_dir;
  return m;
}

Phase model_phase(const CertifyOptions& o) {
  Phase p;
  p.name = "model";
  p.layers = {Layer::kL1, Layer::kL2};
  // The model section's own timeout, and one link budget to form the
  // communicator, and a little for the reference run's verdict.
  const double timeout_s = o.profile && o.profile->model ? o.profile->model->timeout_s : 300;
  p.deadline =
      milliseconds(static_cast<long long>(timeout_s * 1000)) + o.link_budget + milliseconds(10000);
  p.participants = Participants::kAllRanks;
  p.plan = plan_model;
  p.run = run_model;
  p.combine = combine_model;
  return p;
}

}  // namespace hn::preflight::certify
