// Phases 1 and 2: the `node` checks on every host (L7, L6), then the checks
// across hosts on the live readings gathered with them (L6, L5).
#include <nlohmann/json.hpp>

#include "formats/snapshot.h"
#include "preflight/certify/message.h"
#include "preflight/certify/phases.h"
#include "probes/cluster/cross_host.h"
#include "reports/catalog.h"

namespace hn::preflight::certify {

namespace {

using nlohmann::json;
using reports::Finding;
using reports::Layer;
using reports::Status;

std::string run_hosts(RankState& st, const std::string&, Deadline deadline) {
  return st.agent->run("node", json{{"node", st.role.node}}.dump(), deadline);
}

PhaseOutcome combine_hosts(Coordinator& co, const std::string&,
                           const std::map<int, std::string>& results) {
  PhaseOutcome out;
  co.readings.assign(co.plan.hosts.size(), std::nullopt);
  co.reading_errors.assign(co.plan.hosts.size(), "");
  for (const auto& [rank, text] : results) {
    const int host = co.plan.host_of.at(static_cast<std::size_t>(rank));
    const HostEntry& h = co.plan.hosts[static_cast<std::size_t>(host)];
    json j = parse_message(text);
    for (auto& f : findings_from_json(j.at("findings"))) {
      Finding hf = on_host(std::move(f), h.name);
      if (hf.status == Status::kFail || hf.status == Status::kError) co.host_failures.push_back(hf);
      out.findings.push_back(std::move(hf));
    }
    std::string why;
    if (j.contains("snapshot")) {
      try {
        formats::Snapshot snap =
            formats::parse_snapshot(j["snapshot"].get<std::string>(), "the snapshot of " + h.name);
        probes::NodeReadings r;
        r.name = h.name;
        r.spec = h.node.empty() ? nullptr : co.profile().find_node(h.node);
        r.links = std::move(snap.physical.links);
        r.addresses = std::move(snap.netplane.addresses);
        r.routes = std::move(snap.netplane.routes);
        r.rdma = std::move(snap.physical.rdma);
        co.readings[static_cast<std::size_t>(host)] = std::move(r);
      } catch (const std::exception& e) {
        why = e.what();
      }
    } else {
      why = j.value("snapshot_error", "no snapshot");
    }
    if (!why.empty()) {
      co.reading_errors[static_cast<std::size_t>(host)] = why;
      Finding f = reports::make_finding(
          "CERT-RANK-ERROR", Status::kError, h.name + " rank " + std::to_string(rank),
          {{"rank", std::to_string(rank)},
           {"host", h.name},
           {"phase", "hosts"},
           {"reason", "the live snapshot for the cross-host checks: " + why},
           {"detail", why}});
      f.layer = Layer::kL6;
      out.findings.push_back(on_host(std::move(f), h.name));
    }
  }
  return out;
}

PhasePlan plan_cross_host(Coordinator& co) {
  PhasePlan p;
  std::size_t have = 0;
  for (const auto& r : co.readings) have += r.has_value();
  if (have == 0) p.skip_kind = co.readings.empty() ? "not_possible" : "after_failure";
  if (have == 0)
    p.skip_reason = co.readings.empty() ? "the hosts phase did not run (it gathers the readings)"
                                        : "no host's live readings arrived in the hosts phase";
  return p;
}

PhaseOutcome combine_cross_host(Coordinator& co, const std::string&,
                                const std::map<int, std::string>&) {
  PhaseOutcome out;
  std::vector<probes::NodeReadings> hosts;
  for (const auto& r : co.readings)
    if (r) hosts.push_back(*r);
  // The consistency checks' own coverage finding speaks of snapshots;
  // certify's (CERT-XHOST-COVERAGE) speaks of the job.
  for (auto& f : probes::check_plane_consistency(co.profile(), hosts))
    if (f.code != "NET-XNODE-COVERAGE") out.findings.push_back(std::move(f));
  for (auto* check : {probes::cluster::check_duplicate_addresses,
                      probes::cluster::check_plane_subnets, probes::cluster::check_coverage})
    for (auto& f : check(co.profile(), hosts)) out.findings.push_back(std::move(f));
  // Every host of the job counts here, with or without readings.
  std::vector<probes::NodeReadings> all;
  for (const auto& h : co.plan.hosts) {
    probes::NodeReadings r;
    r.name = h.name;
    r.spec = h.node.empty() ? nullptr : co.profile().find_node(h.node);
    all.push_back(std::move(r));
  }
  for (auto& f : probes::cluster::check_same_node(all)) out.findings.push_back(std::move(f));
  for (auto& f : out.findings)
    if (f.status == Status::kFail || f.status == Status::kError) co.host_failures.push_back(f);
  return out;
}

}  // namespace

Phase hosts_phase() {
  Phase p;
  p.name = "hosts";
  p.layers = {Layer::kL7, Layer::kL6};
  p.deadline = milliseconds(60000);
  p.participants = Participants::kHostLeaders;
  p.run = run_hosts;
  p.combine = combine_hosts;
  return p;
}

Phase cross_host_phase() {
  Phase p;
  p.name = "cross_host";
  p.layers = {Layer::kL6, Layer::kL5};
  p.deadline = milliseconds(30000);
  p.participants = Participants::kRankZero;
  p.plan = plan_cross_host;
  p.combine = combine_cross_host;
  return p;
}

}  // namespace hn::preflight::certify
