// Phase 4, collectives per plane (L3): on every plane whose links work, a
// communicator bound to the plane address runs allreduce, allgather,
// reduce-scatter and all-to-all at a few sizes with every element verified
// (drivers/comm_bench.h), busbw against the profile's threshold; the traffic
// proof (bytes per NIC before and after a ring allreduce of known size).
// Slow links are the bandwidth phase's (phase_bandwidth.cc).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "drivers/comm_bench.h"
#include "preflight/certify/message.h"
#include "preflight/certify/phases.h"
#include "preflight/certify/plane_comm.h"
#include "probes/cluster/traffic_proof.h"
#include "probes/netplane_view.h"
#include "reports/catalog.h"
#include "stack/l3_comm/collectives.h"
#include "stack/l6_netplane/nic_counters.h"

namespace hn::preflight::certify {

namespace {

using nlohmann::json;
using reports::Finding;
using reports::Layer;
using reports::Status;
namespace netplane = stack::netplane;

PhasePlan plan_collectives(Coordinator& co) {
  PhasePlan p;
  json planes = json::array();
  for (const auto* plane : collective_planes(co.profile())) {
    const PlaneRecord& rec = co.planes[plane->name];
    if (!rec.blocked_by.empty()) {
      p.findings.push_back(reports::make_finding(
          "COMM-COLL-CORRECT", Status::kSkip, "plane " + plane->name,
          {{"reason", "collectives of plane " + plane->name + " do not run: " + rec.blocked_by}}));
      continue;
    }
    planes.push_back(plane->name);
  }
  const auto& o = *co.options;
  if (collective_planes(co.profile()).empty()) {
    p.skip_kind = "not_applicable";
    p.skip_reason = "the profile declares no parameter or data plane";
  } else if (planes.empty())
    p.skip_reason = "no parameter or data plane can run them (" +
                    co.planes[collective_planes(co.profile()).front()->name].blocked_by + ")";
  p.args = json{{"planes", planes},
                {"ops", o.ops},
                {"sizes", o.sizes},
                {"iters", o.iters},
                {"warmup", o.warmup},
                {"proof_bytes", o.proof_bytes},
                {"proof_iters", o.proof_iters},
                {"budget_ms", o.link_budget.count()}}
               .dump();
  return p;
}

// Before and after the proof allreduce, on the host's leader; its bytes are
// known in closed form (combine_plane).
json traffic_proof(RankState& st, comm::Communicator& c, const json& args, Deadline deadline) {
  comm::Options o = until(deadline);
  o.algorithm = comm::Algorithm::kRing;
  const std::size_t count = args.at("proof_bytes").get<std::size_t>() / 4;
  std::vector<float> in(count, 1.0f), out(count);
  auto counters = netplane::make_live_nic_counters();
  comm::barrier(c, until(deadline));
  netplane::NicCounters before = st.role.leader ? counters->read() : netplane::NicCounters{};
  comm::barrier(c, until(deadline));
  for (int i = 0; i < args.at("proof_iters").get<int>(); ++i)
    comm::allreduce(c, in.data(), out.data(), count, o);
  comm::barrier(c, until(deadline));
  json j = json::object();
  if (!st.role.leader) return j;
  for (const auto& [nic, d] : netplane::counter_delta(before, counters->read()))
    j[nic] = {{"rx", d.rx}, {"tx", d.tx}};
  return j;
}

json run_ops(comm::Communicator& c, const json& args, Deadline deadline) {
  json rows = json::array();
  for (const auto& op : args.at("ops")) {
    for (const auto& size : args.at("sizes")) {
      drivers::BenchConfig cfg;
      cfg.op = drivers::bench_op_from_string(op.get<std::string>());
      cfg.min_bytes = cfg.max_bytes = size.get<std::size_t>();
      cfg.factor = 1;
      cfg.iters = args.at("iters").get<int>();
      cfg.warmup = args.at("warmup").get<int>();
      cfg.options = until(deadline);
      cfg.deadline = deadline;
      for (const auto& r : drivers::run_bench(c, cfg))
        rows.push_back({{"op", op},
                        {"size", size},
                        {"bytes", r.bytes},
                        {"time_us", r.time_us},
                        {"busbw", r.busbw},
                        {"algbw", r.algbw},
                        {"wrong", r.wrong}});
    }
  }
  return rows;
}

std::string run_collectives(RankState& st, const std::string& args_text, Deadline deadline) {
  json args = parse_message(args_text);
  json out = {{"planes", json::object()}};
  for (const auto& name : args.at("planes")) {
    const std::string plane = name.get<std::string>();
    json r = json::object();
    try {
      auto c =
          make_plane_comm(st, plane, milliseconds(args.at("budget_ms").get<long long>()), deadline);
      r["transport"] = std::string(comm::to_string(c.comm->transport()));
      r["nics"] = c.nics;
      r["address"] = c.address;
      if (c.comm->transport() == comm::TransportKind::kTcp)
        r["counters"] = traffic_proof(st, *c.comm, args, deadline);
      r["rows"] = run_ops(*c.comm, args, deadline);
      st.comms[plane] = std::move(c.comm);
    } catch (const std::exception& e) {
      r["error"] = e.what();
    }
    out["planes"][plane] = r;
  }
  return out.dump();
}

std::string size_text(std::size_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = static_cast<double>(b);
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  char s[32];
  std::snprintf(s, sizeof s, "%g %s", v, units[u]);
  return s;
}

std::string gbps_text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3f", v);
  return s;
}

// The busbw floor of a plane (GB/s) and where it comes from; 0 when none.
std::pair<double, std::string> busbw_limit(const formats::Profile& profile,
                                           const std::string& plane) {
  const auto t = profile.thresholds_of(plane);
  double limit = 0;
  std::string why;
  if (t.min_busbw_gbps) {
    limit = *t.min_busbw_gbps;
    why = "busbw_min_gbps " + gbps_text(limit);
  }
  const auto* p = profile.find_plane(plane);
  if (t.min_busbw_fraction && p && p->min_speed_mbps) {
    double f = *t.min_busbw_fraction * *p->min_speed_mbps / 8000.0;  // Mbit/s -> GB/s
    if (f > limit) {
      limit = f;
      why = "busbw_min_fraction " + gbps_text(*t.min_busbw_fraction) + " of speed_mbps " +
            std::to_string(*p->min_speed_mbps);
    }
  }
  return {limit, why};
}

void judge_rows(Coordinator& co, const std::string& plane, const json& rows, int world,
                PhaseOutcome& out) {
  std::map<std::string, std::vector<const json*>> by_op;
  for (const auto& row : rows) by_op[row.at("op").get<std::string>()].push_back(&row);
  const auto [limit, limit_why] = busbw_limit(co.profile(), plane);
  PlaneRecord& rec = co.planes[plane];
  for (const auto& [op, list] : by_op) {
    long long wrong = 0;
    std::vector<std::string> bad;
    for (const json* row : list) {
      long long w = std::max(0LL, row->at("wrong").get<long long>());
      wrong += w;
      if (w > 0) bad.push_back(size_text(row->at("size").get<std::size_t>()));
      for (const char* name : {"busbw", "time_us"}) {
        reports::Measurement m;
        m.name = std::string("collective.") + (std::string(name) == "busbw" ? "busbw" : "time");
        // The size asked for, not the bytes after rounding to whole elements
        // per rank (which depend on the rank count): the figure's identity.
        m.labels = {{"plane", plane},
                    {"op", op},
                    {"bytes", std::to_string(row->at("size").get<std::size_t>())}};
        m.value = row->at(name).get<double>();
        m.unit = std::string(name) == "busbw" ? "GB/s" : "us";
        // One verdict per measurement: busbw is judged; the time is the same
        // transfer seen reciprocally, shown but not judged a second time.
        m.better = std::string(name) == "busbw" ? reports::Better::kHigher : reports::Better::kNone;
        out.metrics.push_back(m);
      }
    }
    const json& last = *list.back();
    out.findings.push_back(reports::make_finding(
        "COMM-COLL-CORRECT", wrong ? Status::kFail : Status::kPass, op + " plane " + plane,
        {{"op", op},
         {"plane", plane},
         {"sizes", std::to_string(list.size())},
         {"max_size", size_text(last.at("size").get<std::size_t>())},
         {"ranks", std::to_string(world)},
         {"wrong", std::to_string(wrong)},
         {"bad_sizes", probes::join_list(bad)}}));
    const double busbw = last.at("busbw").get<double>();
    const bool low = limit > 0 && busbw < limit;
    const std::string size = size_text(last.at("size").get<std::size_t>());
    // Without a floor the figure is measured and recorded (the certificate,
    // gate) but nothing was judged: a PASS here could never have been a FAIL.
    reports::Params params{{"op", op},
                           {"plane", plane},
                           {"busbw", gbps_text(busbw)},
                           {"size", size},
                           {"ranks", std::to_string(world)}};
    Status status = Status::kSkip;
    if (limit > 0) {
      status = low ? Status::kFail : Status::kPass;
      params["limit"] = gbps_text(limit);
      params["limit_text"] = "minimum " + gbps_text(limit) + " GB/s from " + limit_why;
    } else {
      params["reason"] = "no floor to judge against: busbw " + gbps_text(busbw) + " GB/s at " +
                         size + " on " + std::to_string(world) +
                         " ranks was measured; set busbw_min_gbps or busbw_min_fraction for "
                         "plane " + plane + " in the profile to judge it";
    }
    Finding f = reports::make_finding("COMM-COLL-BUSBW", status, op + " plane " + plane, params);
    f.metrics["busbw"] = {busbw, "GB/s"};
    out.findings.push_back(std::move(f));
    if (op == "allreduce" || rec.load_op.empty()) {
      rec.load_op = op;
      rec.load_bytes = last.at("size").get<std::size_t>();
      rec.load_busbw_alone = busbw;
      rec.load_time_us = last.at("time_us").get<double>();
    }
  }
  rec.collectives_ran = !by_op.empty();
}

// Payload bytes each host's ranks send to other hosts in the proof: a ring
// allreduce sends 2(n-1)/n of the buffer per call, all of it to rank+1.
std::vector<std::uint64_t> expected_tx(const JobPlan& plan, const json& args) {
  const int n = static_cast<int>(plan.host_of.size());
  std::vector<std::uint64_t> out(plan.hosts.size(), 0);
  const double per_rank = 2.0 * (n - 1) / n *
                          static_cast<double>(args.at("proof_bytes").get<std::uint64_t>() / 4 * 4) *
                          args.at("proof_iters").get<int>();
  for (int r = 0; r < n; ++r)
    if (plan.host_of[static_cast<std::size_t>(r)] !=
        plan.host_of[static_cast<std::size_t>((r + 1) % n)])
      out[static_cast<std::size_t>(plan.host_of[static_cast<std::size_t>(r)])] +=
          static_cast<std::uint64_t>(per_rank);
  return out;
}

void combine_plane(Coordinator& co, const std::string& plane, const json& args,
                   const std::map<int, std::string>& results, PhaseOutcome& out) {
  const int world = static_cast<int>(co.plan.host_of.size());
  PlaneRecord& rec = co.planes[plane];
  std::vector<std::pair<int, std::string>> errors;
  std::vector<probes::cluster::HostTraffic> traffic;
  const auto expected = expected_tx(co.plan, args);
  std::string transport;
  for (const auto& [rank, text] : results) {
    json j = parse_message(text);
    if (!j.at("planes").contains(plane)) continue;
    const json& pj = j["planes"][plane];
    if (pj.contains("error")) {
      errors.emplace_back(rank, pj["error"].get<std::string>());
      continue;
    }
    if (rank == 0) {
      transport = pj.at("transport");
      judge_rows(co, plane, pj.at("rows"), world, out);
    }
    if (pj.contains("counters") && co.plan.is_leader(rank)) {
      probes::cluster::HostTraffic t;
      const int host = co.plan.host_of[static_cast<std::size_t>(rank)];
      t.host = co.plan.hosts[static_cast<std::size_t>(host)].name;
      t.plane_nics = pj.at("nics").get<std::vector<std::string>>();
      t.address = pj.at("address");
      for (const auto& [nic, d] : pj["counters"].items())
        t.delta[nic] = {d.at("rx").get<std::uint64_t>(), d.at("tx").get<std::uint64_t>()};
      t.expected_tx = expected[static_cast<std::size_t>(host)];
      traffic.push_back(std::move(t));
    }
  }
  if (!errors.empty() && !co.lost.empty()) {
    // A rank was lost in this phase: its CERT-RANK-LOST is the cause, and
    // every survivor's "peer closed" is its echo.
    const auto& [lost, how] = *co.lost.begin();
    Finding f = reports::make_finding(
        "COMM-COLL-CORRECT", Status::kSkip, "plane " + plane,
        {{"reason", "not judged: rank " + std::to_string(lost) + " on " + co.plan.host_name(lost) +
                        " was lost mid-run (CERT-RANK-LOST)"}});
    for (const auto& [r, w] : errors) f.evidence["rank " + std::to_string(r)] = w;
    out.findings.push_back(std::move(f));
    rec.blocked_by = "CERT-RANK-LOST rank " + std::to_string(lost);
    return;
  }
  if (!errors.empty() && co.cut_by_run) {
    // The rank whose own deadline passed names the cause; the others saw
    // it leave ("peer closed: rank N died"), which no rank did.
    auto cause = std::find_if(errors.begin(), errors.end(), [](const auto& e) {
      return e.second.find("died") == std::string::npos;
    });
    auto [rank, why] = cause != errors.end() ? *cause : errors.front();
    Finding f = reports::make_finding(
        "CERT-RUN-TIMEOUT", Status::kError, "plane " + plane,
        {{"phase", "collectives"},
         {"timeout_s", std::to_string(co.options->run_timeout.count() / 1000)},
         {"reason", "the run's --timeout ran out during the collectives of plane " + plane +
                        " (rank " + std::to_string(rank) + ": " + why + ")"}});
    f.layer = Layer::kL3;
    out.findings.push_back(std::move(f));
    rec.blocked_by = "CERT-RUN-TIMEOUT plane " + plane;
    return;
  }
  if (!errors.empty()) {
    auto [rank, why] = errors.front();
    Finding f = reports::make_finding("COMM-COLL-FAILED", Status::kFail, "plane " + plane,
                                      {{"op", "the collectives"},
                                       {"plane", plane},
                                       {"detail", "rank " + std::to_string(rank) + " on " +
                                                      co.plan.host_name(rank) + ": " + why}});
    for (const auto& [r, w] : errors) f.evidence["rank " + std::to_string(r)] = w;
    out.findings.push_back(std::move(f));
    rec.blocked_by = "COMM-COLL-FAILED plane " + plane;
    return;
  }
  if (transport == "shm") {
    out.findings.push_back(reports::make_finding(
        "NET-TRAFFIC-PLANE", Status::kSkip, "plane " + plane,
        {{"reason",
          "every rank is on one host: the collectives ran over shared memory and no "
          "byte left through a NIC"}}));
  } else {
    auto t = probes::cluster::check_traffic(plane, traffic, 0.95, "collectives");
    if (t.findings.empty())
      t.findings.push_back(reports::make_finding(
          "NET-TRAFFIC-PLANE", Status::kSkip, "plane " + plane,
          {{"reason",
            "no rank's ring neighbour is on another host, so no proof byte had to "
            "leave through a NIC"}}));
    for (auto& f : t.findings) out.findings.push_back(std::move(f));
    for (auto& m : t.metrics) out.metrics.push_back(std::move(m));
  }
}

PhaseOutcome combine_collectives(Coordinator& co, const std::string& args_text,
                                 const std::map<int, std::string>& results) {
  PhaseOutcome out;
  json args = parse_message(args_text);
  for (const auto& name : args.at("planes"))
    combine_plane(co, name.get<std::string>(), args, results, out);
  return out;
}

}  // namespace

Phase collectives_phase() {
  Phase p;
  p.name = "collectives";
  p.layers = {Layer::kL3};
  p.deadline = milliseconds(300000);
  p.participants = Participants::kAllRanks;
  p.plan = plan_collectives;
  p.run = run_collectives;
  p.combine = combine_collectives;
  return p;
}

}  // namespace hn::preflight::certify
