// Phase 5, shared storage (L7): every profile mount's jitter workload on all
// hosts at once, per host and merged across hosts (exact percentiles from
// the hosts' histograms); then again while every rank runs the parameter
// plane's collective, to measure how much storage and the plane slow each
// other down (storage.interference limits).
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "drivers/comm_bench.h"
#include "preflight/certify/message.h"
#include "preflight/certify/phases.h"
#include "preflight/certify/plane_comm.h"
#include "probes/cluster/storage_load.h"
#include "reports/catalog.h"

namespace hn::preflight::certify {

namespace {

using nlohmann::json;
using reports::Finding;
using reports::Layer;
using reports::Status;
namespace cluster = probes::cluster;

// A failed mount check of the hosts phase makes the jitter run on that
// mount of that host pointless (or a second hang): it is skipped, naming it.
std::string blocking_mount_failure(const Coordinator& co, const std::string& host,
                                   const std::string& path) {
  static const std::set<std::string> kBlocking = {
      "STOR-MOUNT-HUNG",     "STOR-MOUNT-PRESENT", "STOR-PATH-MISSING", "STOR-MOUNT-STALE",
      "STOR-MOUNT-IO-ERROR", "STOR-MOUNT-ACCESS",  "STOR-PROBE-DIR",    "RUN-PROBE-TIMEOUT"};
  for (const auto& f : co.host_failures) {
    if (f.host != host || !kBlocking.count(f.code)) continue;
    auto it = f.evidence.find("path");
    auto probe = f.evidence.find("probe");
    if ((it != f.evidence.end() && it->second == path) ||
        (probe != f.evidence.end() && probe->second == "storage.mount " + path))
      return f.code + " failed on " + f.entity;
  }
  return "";
}

double storage_budget_s(const formats::Profile& p) {
  double timeout = 0;
  for (const auto& m : p.storage.mounts) timeout = std::max(timeout, m.timeout_s);
  return p.storage.jitter.duration_s + timeout + 2;
}

PhasePlan plan_storage(Coordinator& co) {
  PhasePlan p;
  const auto& profile = co.profile();
  if (profile.storage.mounts.empty()) {
    p.skip_kind = "not_applicable";
    p.skip_reason = "the profile declares no storage.mounts";
    return p;
  }
  json skip = json::object();
  for (std::size_t h = 0; h < co.plan.hosts.size(); ++h) {
    const std::string& host = co.plan.hosts[h].name;
    json paths = json::array();
    for (const auto& m : profile.storage.mounts) {
      if (!m.jitter) continue;
      if (std::string why = blocking_mount_failure(co, host, m.path); !why.empty()) {
        paths.push_back(m.path);
        p.findings.push_back(
            on_host(reports::make_finding("STOR-JITTER-LATENCY", Status::kSkip, m.path,
                                          {{"reason", "the jitter workload does not run: " + why}}),
                    host));
      }
    }
    skip[std::to_string(h)] = paths;
  }
  json load = nullptr;
  std::string no_load = "no parameter or data plane ran its collectives";
  for (const auto* plane : collective_planes(profile)) {
    const PlaneRecord& rec = co.planes[plane->name];
    if (!rec.collectives_ran || !rec.blocked_by.empty() || rec.load_time_us <= 0) continue;
    const double seconds = profile.storage.jitter.duration_s;
    const int iters = std::max(3, static_cast<int>(std::ceil(seconds * 1e6 / rec.load_time_us)));
    load = {{"plane", plane->name},
            {"op", rec.load_op},
            {"bytes", rec.load_bytes},
            {"iters", iters},
            {"busbw_alone", rec.load_busbw_alone}};
    break;
  }
  p.args = json{{"skip", skip},
                {"load", load},
                {"no_load", no_load},
                {"budget_s", storage_budget_s(profile)}}
               .dump();
  return p;
}

std::string storage_arg(const RankState& st, const json& args) {
  return json{{"node", st.role.node}, {"skip", args.at("skip").at(std::to_string(st.role.host))}}
      .dump();
}

std::string run_storage(RankState& st, const std::string& args_text, Deadline deadline) {
  json args = parse_message(args_text);
  const auto budget =
      milliseconds(static_cast<long long>(args.at("budget_s").get<double>() * 1000));
  json out = json::object();
  if (st.role.leader)
    out["alone"] = parse_message(st.agent->run("storage", storage_arg(st, args),
                                               std::min(deadline, Clock::now() + budget)))
                       .at("findings");
  const json& load = args.at("load");
  if (load.is_null()) return out.dump();
  auto it = st.comms.find(load.at("plane").get<std::string>());
  if (it == st.comms.end()) {
    out["load_error"] =
        "this rank has no communicator on plane " + load.at("plane").get<std::string>();
    return out.dump();
  }
  comm::Communicator& c = *it->second;
  try {
    // The leaders come from the storage run alone: wait for them as long.
    comm::barrier(c, until(deadline));
    if (st.role.leader)
      st.agent->start("storage", storage_arg(st, args), std::min(deadline, Clock::now() + budget));
    drivers::BenchConfig cfg;
    cfg.op = drivers::bench_op_from_string(load.at("op").get<std::string>());
    cfg.min_bytes = cfg.max_bytes = load.at("bytes").get<std::size_t>();
    cfg.factor = 1;
    cfg.iters = load.at("iters").get<int>();
    cfg.warmup = 0;
    cfg.check = false;
    cfg.options = until(deadline);
    auto rows = drivers::run_bench(c, cfg);
    if (!rows.empty())
      out["load"] = {{"busbw", rows.front().busbw}, {"time_us", rows.front().time_us}};
  } catch (const comm::CommError& e) {
    out["load_error"] = e.what();
  }
  if (st.role.leader)
    out["under_load"] =
        parse_message(st.agent->result(deadline + HostAgent::kKillGrace)).at("findings");
  return out.dump();
}

PhaseOutcome combine_storage(Coordinator& co, const std::string& args_text,
                             const std::map<int, std::string>& results) {
  PhaseOutcome out;
  json args = parse_message(args_text);
  cluster::StorageRuns runs;
  json load_result = nullptr;
  std::string load_error;
  for (const auto& [rank, text] : results) {
    json j = parse_message(text);
    const std::string host = co.plan.host_name(rank);
    if (rank == 0 && j.contains("load")) load_result = j["load"];
    if (j.contains("load_error") && load_error.empty())
      load_error = "rank " + std::to_string(rank) + ": " + j["load_error"].get<std::string>();
    for (const char* cond : {"alone", "under_load"}) {
      if (!j.contains(cond)) continue;
      for (auto& f : findings_from_json(j[cond])) {
        f = on_host(std::move(f), host);
        const bool latency = cluster::take_histogram(f, cond, runs);
        // Under load only what goes wrong besides the figures is reported
        // on its own (a hang, an I/O error); the figures are compared below.
        if (std::string(cond) == "alone" ||
            (!latency && f.code.rfind("STOR-JITTER-", 0) != 0 &&
             f.code.rfind("STOR-CHECKPOINT-", 0) != 0 && f.status != Status::kPass))
          out.findings.push_back(std::move(f));
      }
    }
  }
  auto agg = cluster::aggregate_storage(runs, "storage");
  for (auto& f : agg.findings) out.findings.push_back(std::move(f));
  for (auto& m : agg.metrics) out.metrics.push_back(std::move(m));
  const json& load = args.at("load");
  const auto& s = co.profile().storage;
  if (load.is_null()) {
    out.findings.push_back(reports::make_finding(
        "STOR-UNDER-LOAD", Status::kSkip, "storage",
        {{"reason", "not measured under load: " + args.at("no_load").get<std::string>()}}));
    return out;
  }
  const std::string plane = load.at("plane");
  auto cmp =
      cluster::compare_under_load(runs, plane, s.interference_warn, s.interference_fail, "storage");
  for (auto& f : cmp.findings) out.findings.push_back(std::move(f));
  for (auto& m : cmp.metrics) out.metrics.push_back(std::move(m));
  if (load_result.is_null()) {
    out.findings.push_back(reports::make_finding(
        "COMM-BUSBW-UNDER-LOAD", Status::kSkip, "plane " + plane,
        {{"reason", "the collective load did not complete: " +
                        (load_error.empty() ? std::string("no result") : load_error)}}));
    return out;
  }
  auto bw = cluster::compare_busbw(plane, load.at("op"), load.at("bytes").get<std::size_t>(),
                                   load.at("busbw_alone").get<double>(),
                                   load_result.at("busbw").get<double>(), s.interference_warn,
                                   s.interference_fail, "storage");
  for (auto& f : bw.findings) out.findings.push_back(std::move(f));
  for (auto& m : bw.metrics) out.metrics.push_back(std::move(m));
  return out;
}

}  // namespace

Phase storage_phase() {
  Phase p;
  p.name = "storage";
  p.layers = {Layer::kL7};
  p.deadline = milliseconds(300000);
  p.participants = Participants::kAllRanks;
  p.plan = plan_storage;
  p.run = run_storage;
  p.combine = combine_storage;
  return p;
}

}  // namespace hn::preflight::certify
