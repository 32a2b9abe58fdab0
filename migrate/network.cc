// Concern 4, network policy: which plane each traffic class uses once the
// job's settings are translated (collectives, rendezvous, storage), the
// translation's port rule against the ephemeral range, and settings that pin
// traffic to a management or business plane.
#include <optional>
#include <set>

#include "compat/ifname_grammar.h"
#include "migrate/concerns.h"
#include "migrate/placement.h"
#include "probes/translate_findings.h"
#include "reports/catalog.h"
#include "stack/l7_physical/mountinfo.h"

namespace hn::migrate {

namespace tr = compat::translate;
namespace np = stack::netplane;
using reports::Status;

namespace {

bool off_limits(const np::Plane& p) {
  return p.type == np::PlaneType::kManagement || p.type == np::PlaneType::kBusiness;
}

// The parameter plane collectives belong on (--plane / [target] plane, else
// the first of type parameter).
const np::Plane* parameter_plane(const Job& job) {
  for (const auto& p : job.profile.planes)
    if (job.plane ? p.name == job.plane->value : p.type == np::PlaneType::kParameter) return &p;
  return nullptr;
}

// Each profile node's NICs (the node's override, else the plane's NIC, when
// it is a name and not a glob) with the node's plane addresses.
std::vector<std::pair<std::string, std::vector<compat::NicCandidate>>> profile_nics(
    const formats::Profile& profile) {
  std::vector<std::pair<std::string, std::vector<compat::NicCandidate>>> out;
  std::vector<const formats::NodeSpec*> nodes;
  formats::NodeSpec any;
  any.name = "every node";
  for (const auto& n : profile.nodes) nodes.push_back(&n);
  if (nodes.empty()) nodes.push_back(&any);
  for (const auto* node : nodes) {
    std::vector<compat::NicCandidate> nics;
    for (const auto& plane : profile.planes) {
      auto o = node->nics.find(plane.name);
      std::string name = o != node->nics.end() ? o->second : plane.nic;
      if (name.empty() || name == "auto" || name.find_first_of("*?[") != std::string::npos)
        continue;
      compat::NicCandidate c;
      c.name = name;
      auto a = node->addresses.find(plane.name);
      if (a != node->addresses.end()) c.addresses.push_back(a->second);
      nics.push_back(c);
    }
    out.emplace_back(node->name, nics);
  }
  return out;
}

// Where the translated env line `name` came from: the input variable and place.
std::string origin_of(const tr::Translation& t, const std::string& name, std::string* var,
                      std::string* value) {
  for (const auto& v : t.vars)
    for (const auto& [out, val] : v.outputs)
      if (out == name) {
        *var = v.input.name;
        *value = v.input.value;
        return v.input.where();
      }
  *var = name;
  return "";
}

void add_traffic(Concern& c, const std::string& cls, Status st, const std::string& plane,
                 const std::string& how, const std::string& why = "", const std::string& todo = "",
                 const std::string& where = "") {
  c.add(reports::make_finding(
            "MIG-NET-TRAFFIC", st, cls,
            {{"class", cls}, {"plane", plane}, {"how", how}, {"why", why}, {"todo", todo}}),
        false, where);
}

void check_collectives(Concern& c, const Job& job, const tr::Translation& t) {
  std::map<std::string, std::string> env;
  for (const auto& l : t.env) env[l.name] = l.value;
  const bool hccl = t.to == "hccl";
  const np::Plane* param = parameter_plane(job);
  const std::string param_nic = param ? param->nic : "";
  const std::string pin_todo =
      param
          ? "Pin the collectives to the parameter plane " + param->name +
                (param_nic.empty() || param_nic == "auto"
                     ? ""
                     : ": " + std::string(hccl ? "HCCL" : "NCCL") + "_SOCKET_IFNAME==" + param_nic)
          : "Declare the parameter plane in the profile (planes[].type: parameter) and pin the "
            "collectives to its NIC";
  std::string var =
      hccl ? (env.count("HCCL_IF_IP") ? "HCCL_IF_IP" : "HCCL_SOCKET_IFNAME") : "NCCL_SOCKET_IFNAME";
  if (!env.count(var)) {
    add_traffic(c, "collectives", Status::kWarn, "an unpinned NIC",
                std::string(hccl ? "HCCL" : "NCCL") + "'s own choice",
                std::string(hccl ? "HCCL takes the first NIC in name order (other NICs, then "
                                   "docker*, then lo)"
                                 : "NCCL avoids lo and docker* and may use every other NIC") +
                    ", which need not be the parameter plane's",
                pin_todo + ".");
    return;
  }
  std::string src_var, src_value;
  std::string where = origin_of(t, var, &src_var, &src_value);
  const std::string how =
      var + "=" + env[var] + (where.empty() ? "" : " (from " + src_var + " at " + where + ")");
  std::set<const np::Plane*> planes;
  std::vector<std::string> unmatched;
  if (var == "HCCL_IF_IP") {
    const np::Plane* p = plane_of_address(job.profile, env[var]);
    if (p)
      planes.insert(p);
    else
      unmatched.push_back("every node");
  } else {
    for (const auto& [node, nics] : profile_nics(job.profile)) {
      compat::IfSelection sel = hccl ? compat::resolve_hccl_socket_ifname(env[var], nics)
                                     : compat::resolve_nccl_socket_ifname(env[var], nics);
      if (sel.used().empty()) unmatched.push_back(node);
      for (const auto& nic : sel.used())
        if (const np::Plane* p = plane_of_nic(job.profile, nic)) planes.insert(p);
    }
  }
  for (const np::Plane* p : planes)
    if (off_limits(*p)) {
      c.add(reports::make_finding(
                "MIG-NET-PINNED", Status::kFail, src_var,
                {{"var", src_var},
                 {"value", src_value.empty() ? env[var] : src_value},
                 {"where", where.empty() ? "translated environment" : where},
                 {"class", "collectives"},
                 {"type", std::string(np::to_string(p->type))},
                 {"plane", p->name},
                 {"param_hint", param && !param_nic.empty()
                                    ? " (" + param->name + ", NIC " + param_nic + ")"
                                    : ""}}),
            false, where);
      return;
    }
  if (!unmatched.empty() || planes.empty()) {
    std::string nodes;
    for (const auto& n : unmatched) nodes += (nodes.empty() ? "" : ", ") + n;
    add_traffic(c, "collectives", Status::kWarn, "no plane of the profile", how,
                "it selects none of the profile's plane NICs on " +
                    (nodes.empty() ? std::string("any node") : nodes),
                pin_todo + ".", where);
    return;
  }
  std::string names;
  bool all_param = true;
  for (const np::Plane* p : planes) {
    names += (names.empty() ? "" : ", ") + plane_text(*p);
    all_param = all_param && p->type == np::PlaneType::kParameter;
  }
  if (all_param)
    add_traffic(c, "collectives", Status::kPass, names, how);
  else
    add_traffic(c, "collectives", Status::kWarn, names, how,
                "gradient traffic belongs on the parameter plane", pin_todo + ".", where);
}

// The rendezvous host: MASTER_ADDR in the environment, else torchrun's
// --master-addr or the host of its --rdzv-endpoint (a script often sets
// MASTER_ADDR as a plain shell variable and passes it that way).
struct RendezvousHost {
  std::string value, raw, where;
  std::string label;  // "MASTER_ADDR=", "torchrun --master-addr "
  bool dynamic = false;
};

std::optional<RendezvousHost> rendezvous_host(const Job& job) {
  std::optional<RendezvousHost> out;
  for (const auto& e : job.env)
    if (e.name == "MASTER_ADDR")
      out = RendezvousHost{e.value, "MASTER_ADDR=" + e.raw, e.where(), "MASTER_ADDR=", e.dynamic};
  if (out) return out;
  for (const auto& d : job.discovery.directives) {
    if (d.tool != "torchrun" || (d.option != "--master-addr" && d.option != "--rdzv-endpoint"))
      continue;
    std::string host = d.value;
    if (d.option == "--rdzv-endpoint" && host.find(']') == std::string::npos)
      host = host.substr(0, host.rfind(':'));
    const bool dynamic = host.empty() || host.find_first_of("$`") != std::string::npos;
    out = RendezvousHost{host, "torchrun " + d.text, d.where(), "torchrun " + d.option + " ",
                         dynamic};
  }
  return out;
}

void check_rendezvous(Concern& c, const Job& job) {
  const std::optional<RendezvousHost> addr = rendezvous_host(job);
  if (!addr) {
    c.add(reports::make_finding(
        "MIG-NET-TRAFFIC", Status::kSkip, "rendezvous",
        {{"reason",
          "the job names no rendezvous host (no MASTER_ADDR, no torchrun --master-addr or "
          "--rdzv-endpoint): the launcher uses whatever the first node's host name resolves "
          "to"}}));
    return;
  }
  if (addr->dynamic) {
    c.add(reports::make_finding(
        "MIG-NET-TRAFFIC", Status::kSkip, "rendezvous",
        {{"reason", addr->raw + " (" + addr->where +
                        ") is computed at run time; the rendezvous uses whatever plane that "
                        "host name resolves to"}}));
    return;
  }
  const np::Plane* p = plane_of_address(job.profile, addr->value);
  std::string how = addr->label + addr->value + " (" + addr->where + ")";
  if (!p) {
    c.add(reports::make_finding(
        "MIG-NET-TRAFFIC", Status::kSkip, "rendezvous",
        {{"reason", how + " is a host name or an address in no plane of the profile"}}));
    return;
  }
  // The rendezvous store carries little traffic; the management plane suits
  // it (it is where launchers reach nodes). A business plane does not.
  if (p->type == np::PlaneType::kBusiness) {
    // The setting that pins it: MASTER_ADDR, or torchrun's option.
    std::string var = addr->label;
    while (!var.empty() && (var.back() == '=' || var.back() == ' ')) var.pop_back();
    c.add(reports::make_finding("MIG-NET-PINNED", Status::kFail, var,
                                {{"var", var},
                                 {"value", addr->value},
                                 {"where", addr->where},
                                 {"class", "rendezvous"},
                                 {"type", "business"},
                                 {"plane", p->name},
                                 {"param_hint", ""}}),
          false, addr->where);
    return;
  }
  add_traffic(c, "rendezvous", Status::kPass, plane_text(*p), how);
}

// Storage traffic goes to the server of the mount that holds the job's paths.
void check_storage_traffic(Concern& c, const Job& job) {
  std::set<const formats::MountSpec*> mounts;
  for (const auto& jp : job.paths) {
    PathPlacement pl = place_path(jp.path.value, jp.path.dynamic, job.profile, job.evidence);
    if (pl.kind == PathPlacement::kShared) mounts.insert(pl.mount);
  }
  for (const formats::MountSpec* m : mounts) {
    std::string source = m->source;
    std::string from = "the profile's storage.mounts source";
    if (source.empty())
      for (const auto& snap : job.evidence.snapshots)
        if (const auto* e = stack::physical::covering_mount(snap.mounts, m->path)) {
          source = e->source;
          from = "the mount table of " + snap.hostname;
          break;
        }
    auto colon = source.find(':');
    std::string server = colon == std::string::npos ? "" : source.substr(0, colon);
    if (!server.empty() && server.front() == '[' && server.back() == ']')
      server = server.substr(1, server.size() - 2);
    const np::Plane* p = server.empty() ? nullptr : plane_of_address(job.profile, server);
    if (!p) {
      c.add(reports::make_finding(
          "MIG-NET-TRAFFIC", Status::kSkip, "storage " + m->path,
          {{"reason", source.empty()
                          ? "the source of " + m->path +
                                " is not known (give storage.mounts[].source "
                                "in the profile, or a snapshot)"
                          : "the server of " + m->path + " (" + source + ", " + from +
                                ") is a host name or lies in no plane of the profile"}}));
      continue;
    }
    std::string how = m->path + " from " + source + " (" + from + ")";
    Status st = p->type == np::PlaneType::kStorage ? Status::kPass : Status::kWarn;
    std::string why = off_limits(*p) ? "storage traffic would crowd the plane that keeps the "
                                       "cluster reachable"
                      : p->type == np::PlaneType::kParameter
                          ? "checkpoint writes would compete with the collectives"
                          : "the profile has a plane of type storage for it";
    add_traffic(c, "storage", st, plane_text(*p), how, why,
                "Mount " + m->path + " from the storage plane's address of the server.");
  }
}

}  // namespace

Concern check_network(const Job& job, const CommTranslation& ct) {
  Concern c("network", "Network policy");
  const tr::Translation& t = ct.translation;
  check_collectives(c, job, t);
  check_rendezvous(c, job);
  check_storage_traffic(c, job);
  for (auto& f : probes::translation_findings(t))
    if (f.code == "COMM-PARAM-PORTS") c.add(std::move(f));
  int problems = 0;
  std::string planes;
  for (const auto& i : c.items()) {
    problems += is_problem(i.finding);
    if (i.finding.code == "MIG-NET-TRAFFIC" && i.finding.status == Status::kPass)
      planes +=
          (planes.empty() ? "" : "; ") + i.finding.entity + " on " + i.finding.evidence.at("plane");
  }
  c.set_summary((planes.empty() ? std::string("no traffic class placed") : planes) +
                (problems ? "; " + std::to_string(problems) + " problem(s)" : ""));
  return c;
}

}  // namespace hn::migrate
