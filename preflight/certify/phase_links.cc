// Phase 3, links per plane (L3 over L6): on every parameter and data plane,
// each rank connects to its ring neighbours and log2(n) partners
// (drivers/cluster/link_pattern.h), bound to the plane's NIC and address;
// every failed pair is named with both hosts, addresses and its class.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "drivers/cluster/link_mesh.h"
#include "drivers/cluster/link_pattern.h"
#include "preflight/certify/message.h"
#include "preflight/certify/phases.h"
#include "preflight/certify/plane_bind.h"
#include "probes/netplane_view.h"
#include "reports/catalog.h"

namespace hn::preflight::certify {

namespace {

using drivers::cluster::LinkOutcome;
using nlohmann::json;
using reports::Finding;
using reports::Layer;
using reports::Status;

// A host finding of an earlier phase that makes links on `plane`
// meaningless: its NIC is missing or down, its address is missing,
// misbound, duplicated or outside the subnet. "" when there is none.
std::string blocking_failure(const Coordinator& co, const std::string& plane) {
  static const std::set<std::string> kBlocking = {
      "HW-NIC-PRESENT", "HW-NIC-STATE",          "NET-PLANE-ADDRESS", "NET-PLANE-BINDING",
      "NET-VLAN",       "NET-XHOST-ADDRESS-DUP", "NET-XHOST-SUBNET"};
  for (const auto& f : co.host_failures) {
    auto it = f.evidence.find("plane");
    if (f.status == Status::kFail && kBlocking.count(f.code) && it != f.evidence.end() &&
        it->second == plane)
      return f.code + " failed on " + f.entity;
  }
  return "";
}

PhasePlan plan_links(Coordinator& co) {
  PhasePlan p;
  json planes = json::array();
  for (const auto* plane : collective_planes(co.profile())) {
    PlaneRecord& rec = co.planes[plane->name];
    if (std::string why = blocking_failure(co, plane->name); !why.empty()) {
      rec.blocked_by = why;
      p.findings.push_back(reports::make_finding(
          "COMM-LINK-PLANE", Status::kSkip, "plane " + plane->name,
          {{"reason", "links of plane " + plane->name + " are not tested: " + why}}));
      continue;
    }
    planes.push_back(plane->name);
  }
  if (collective_planes(co.profile()).empty()) {
    p.skip_kind = "not_applicable";
    p.skip_reason = "the profile declares no parameter or data plane";
  } else if (planes.empty())
    p.skip_reason = "every parameter and data plane failed in an earlier phase (" +
                    co.planes[collective_planes(co.profile()).front()->name].blocked_by + ")";
  p.args = json{{"planes", planes}, {"budget_ms", co.options->link_budget.count()}}.dump();
  return p;
}

json outcome_json(const LinkOutcome& o) {
  return {{"from", o.from},
          {"to", o.to},
          {"status", o.status},
          {"detail", o.detail},
          {"from_address", o.from_address},
          {"to_address", o.to_address},
          {"connect_ms", o.connect_ms},
          {"attempts", o.attempts},
          {"budget_ms", o.budget_ms},
          {"elapsed_ms", o.elapsed_ms}};
}

std::string run_links(RankState& st, const std::string& args_text, Deadline deadline) {
  json args = parse_message(args_text);
  json out = {{"planes", json::object()}};
  for (const auto& name : args.at("planes")) {
    const std::string plane = name.get<std::string>();
    PlaneBinding b = plane_binding(st, plane);
    drivers::cluster::MeshSetup s;
    s.rank = st.rank;
    s.world = st.world;
    s.store = &st.store();
    s.prefix = "links/" + plane;
    s.creds = st.base.creds;
    s.params.connect_timeout = milliseconds(args.at("budget_ms").get<long long>());
    s.params.budget_source = "--link-timeout";
    s.params.plane = plane;
    s.bind = b.bind;
    s.deadline = deadline;
    auto mesh = drivers::cluster::LinkMesh::build(s);
    json outcomes = json::array();
    for (const auto& o : mesh->outcomes()) outcomes.push_back(outcome_json(o));
    out["planes"][plane] = {{"address", mesh->bind().address},
                            {"nic", mesh->bind().nic},
                            {"error", mesh->bind().error},
                            {"outcomes", outcomes}};
  }
  return out.dump();
}

const char* code_for(const std::string& status) {
  if (status == "refused") return "COMM-LINK-REFUSED";
  if (status == "timeout") return "COMM-LINK-TIMEOUT";
  if (status == "no_route") return "COMM-LINK-NO-ROUTE";
  if (status == "auth") return "COMM-LINK-AUTH";
  return "COMM-LINK-FAILED";
}

std::string ip_of(const std::string& address) {
  if (!address.empty() && address.front() == '[') return address.substr(1, address.find(']') - 1);
  return address.substr(
      0, address.rfind(':') == std::string::npos ? address.size() : address.rfind(':'));
}

std::string ms_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void combine_plane(Coordinator& co, const std::string& plane,
                   const std::map<int, std::string>& results, PhaseOutcome& out) {
  PlaneRecord& rec = co.planes[plane];
  const int world = static_cast<int>(co.plan.host_of.size());
  std::map<std::string, int> classes;
  std::vector<double> connect_ms;
  int failed = 0, cut = 0;
  std::set<int> hosts_seen;
  // Ranks that cannot bind, one finding per host (its ranks share the cause).
  std::map<int, std::pair<std::vector<int>, std::string>> unbound;
  for (const auto& [rank, text] : results) {
    json j = parse_message(text);
    if (!j.at("planes").contains(plane)) continue;
    const json& pj = j["planes"][plane];
    hosts_seen.insert(co.plan.host_of.at(static_cast<std::size_t>(rank)));
    if (!pj.at("error").get<std::string>().empty()) {
      auto& u = unbound[co.plan.host_of.at(static_cast<std::size_t>(rank))];
      u.first.push_back(rank);
      u.second = pj["error"].get<std::string>();
    }
    for (const auto& o : pj.at("outcomes")) {
      const std::string status = o.at("status");
      if (status == "ok") {
        connect_ms.push_back(o.at("connect_ms").get<double>());
        continue;
      }
      if (status == "unbound" || status == "peer_unbound") continue;
      ++failed;
      if (status == "timeout" && co.cut_by_run) {
        // The run's --timeout, not the pair, ended the attempt.
        --failed;
        ++cut;
        continue;
      }
      ++classes[status];
      const int from = o.at("from"), to = o.at("to");
      const std::string from_host = co.plan.host_name(from), to_host = co.plan.host_name(to);
      std::string from_addr = o.at("from_address"), to_addr = o.at("to_address");
      if (to_addr.empty()) to_addr = "rank " + std::to_string(to) + "'s address";
      Finding f = reports::make_finding(
          code_for(status), Status::kFail, from_host + " -> " + to_host + " plane " + plane,
          {{"plane", plane},
           {"from_host", from_host + " (rank " + std::to_string(from) + ")"},
           {"to_host", to_host + " (rank " + std::to_string(to) + ")"},
           {"from_address", from_addr},
           {"to_address", to_addr},
           {"from_ip", ip_of(from_addr)},
           {"to_ip", ip_of(to_addr)},
           {"detail", o.at("detail").get<std::string>()},
           {"attempts", std::to_string(o.at("attempts").get<int>())},
           {"elapsed_ms", std::to_string(o.at("elapsed_ms").get<long long>())},
           {"budget_ms", std::to_string(o.at("budget_ms").get<long long>())}});
      f.host = from_host;
      if (rec.blocked_by.empty()) rec.blocked_by = f.code + " " + f.entity;
      out.findings.push_back(std::move(f));
    }
  }
  for (const auto& [host, u] : unbound) {
    std::vector<std::string> ranks;
    for (int r : u.first) ranks.push_back(std::to_string(r));
    const std::string name = co.plan.hosts[static_cast<std::size_t>(host)].name;
    Finding f = reports::make_finding("COMM-LINK-BIND", Status::kFail, name + " plane " + plane,
                                      {{"rank", probes::join_list(ranks)},
                                       {"plane", plane},
                                       {"address", "-"},
                                       {"nic", "-"},
                                       {"detail", u.second}});
    f.host = name;
    if (rec.blocked_by.empty()) rec.blocked_by = f.code + " " + f.entity;
    out.findings.push_back(std::move(f));
  }
  std::string class_text;
  for (const auto& [c, n] : classes)
    class_text += (class_text.empty() ? "" : ", ") + std::to_string(n) + " " + c;
  if (!unbound.empty())
    class_text += (class_text.empty() ? "" : ", ") + std::to_string(unbound.size()) +
                  " host(s) cannot bind the plane";
  const long long pairs = drivers::cluster::link_pair_count(world);
  if (cut > 0) {
    Finding f = reports::make_finding(
        "CERT-RUN-TIMEOUT", Status::kError, "plane " + plane,
        {{"phase", "links"},
         {"timeout_s", std::to_string(co.options->run_timeout.count() / 1000)},
         {"reason", "the run's --timeout ran out while " + std::to_string(cut) +
                        " link(s) of plane " + plane + " were still connecting"}});
    f.layer = Layer::kL3;
    out.findings.push_back(std::move(f));
    if (rec.blocked_by.empty()) rec.blocked_by = "CERT-RUN-TIMEOUT plane " + plane;
  }
  const bool ok = failed == 0 && unbound.empty() && cut == 0;
  Finding sum =
      reports::make_finding("COMM-LINK-PLANE", ok ? Status::kPass : Status::kFail, "plane " + plane,
                            {{"plane", plane},
                             {"pairs", std::to_string(pairs)},
                             {"ranks", std::to_string(world)},
                             {"hosts", std::to_string(hosts_seen.size())},
                             {"connect_ms", connect_ms.empty() ? "-" : ms_text(median(connect_ms))},
                             {"failed", std::to_string(failed)},
                             {"classes", class_text}});
  out.findings.push_back(std::move(sum));
  rec.links_ok = ok;
  auto figure = [&](const char* name, double v, const char* unit, reports::Better better) {
    reports::Measurement m;
    m.name = name;
    m.labels = {{"plane", plane}};
    m.value = v;
    m.unit = unit;
    m.better = better;
    out.metrics.push_back(m);
  };
  if (!connect_ms.empty())
    figure("link.connect_time", median(connect_ms), "ms", reports::Better::kLower);
  figure("link.pairs", static_cast<double>(pairs), "count", reports::Better::kNone);
  figure("link.failed", failed, "count", reports::Better::kLower);
}

PhaseOutcome combine_links(Coordinator& co, const std::string& args_text,
                           const std::map<int, std::string>& results) {
  PhaseOutcome out;
  const json args = parse_message(args_text);
  for (const auto& name : args.at("planes"))
    combine_plane(co, name.get<std::string>(), results, out);
  return out;
}

}  // namespace

Phase links_phase() {
  Phase p;
  p.name = "links";
  p.layers = {Layer::kL3, Layer::kL6};
  p.deadline = milliseconds(120000);
  p.participants = Participants::kAllRanks;
  p.plan = plan_links;
  p.run = run_links;
  p.combine = combine_links;
  return p;
}

}  // namespace hn::preflight::certify
