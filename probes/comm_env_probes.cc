#include "probes/comm_env_probes.h"

#include <algorithm>
#include <optional>

#include "compat/ib_hca_grammar.h"
#include "compat/ifname_grammar.h"
#include "probes/netplane_view.h"
#include "probes/rdma_binding_probes.h"
#include "reports/catalog.h"

namespace hn::probes {

using reports::Finding;
using reports::make_finding;
using reports::Status;
namespace netplane = stack::netplane;

namespace {

struct Judge {
  const NodeContext& ctx;
  const CommEnv& env;  // the certain settings only
  const NetReadings& r;
  std::vector<std::string> expected;  // parameter-plane NICs
  std::string address;                // the first parameter-plane address, for suggestions
  std::vector<Finding>& out;

  std::optional<std::string> get(const std::string& key) const {
    auto it = env.find(key);
    if (it == env.end()) return std::nullopt;
    return it->second.value;
  }
  std::string origin(const std::string& key) const {
    auto it = env.find(key);
    return it == env.end() ? "unset here" : it->second.origin;
  }
  bool uses(std::initializer_list<const char*> libs) const {
    return std::any_of(libs.begin(), libs.end(),
                       [&](const char* l) { return ctx.profile->comm.library == l; });
  }

  std::vector<compat::NicCandidate> candidates() const {
    std::vector<compat::NicCandidate> v;
    for (const auto& l : r.links) {
      compat::NicCandidate c{l.name, l.ifindex, l.admin_up, {}};
      for (const auto& a : r.addresses)
        if (a.nic == l.name) c.addresses.push_back(a.address);
      v.push_back(c);
    }
    return v;
  }

  std::string plane_of(const std::string& nic) const {
    return nic == "lo" ? "loopback" : r.view.planes_of(nic);
  }

  std::string planes_of(const std::vector<std::string>& nics) const {
    std::string s;
    for (const auto& n : nics) s += (s.empty() ? "" : "; ") + plane_of(n);
    return s.empty() ? "none" : s;
  }

  // "eth0 (plane mgmt), lo (loopback)"; without a NIC, why: "no NIC ('eth9'
  // matches no interface with an address)".
  std::string described(const std::vector<std::string>& used, const std::string& error) const {
    if (!error.empty()) return "no NIC (" + error + ")";
    std::string s;
    for (const auto& n : used) s += (s.empty() ? "" : ", ") + n + " (" + plane_of(n) + ")";
    return s.empty() ? "no NIC" : s;
  }

  void skip(const std::string& var, const std::string& reason) {
    out.push_back(
        make_finding("NET-COMM-IFNAME", Status::kSkip, var, {{"var", var}, {"reason", reason}}));
  }

  void ifname(const std::string& var, const std::string& shown_value, const std::string& library,
              const compat::IfSelection& sel, const std::string& suggestion,
              const std::string& origin_key = "") {
    std::vector<std::string> used = sel.error.empty() ? sel.used() : std::vector<std::string>{};
    auto wrong = std::find_if(used.begin(), used.end(), [&](const std::string& n) {
      return std::find(expected.begin(), expected.end(), n) == expected.end();
    });
    bool ok = !used.empty() && wrong == used.end();
    Status s = ok ? Status::kPass : sel.automatic ? Status::kWarn : Status::kFail;
    std::string selected = !sel.error.empty() ? "no NIC (" + sel.error + ")" : join_list(used);
    Finding f = make_finding("NET-COMM-IFNAME", s, var,
                             {{"var", var},
                              {"value", shown_value},
                              {"library", library},
                              {"selected", selected},
                              {"selected_planes", planes_of(used)},
                              {"selected_described", described(used, sel.error)},
                              {"expected", join_list(expected)},
                              {"suggestion", suggestion},
                              {"origin", origin(origin_key.empty() ? var : origin_key)},
                              {"nic", used.empty()          ? "none"
                                      : wrong != used.end() ? *wrong
                                                            : used[0]}});
    for (size_t i = 0; i < sel.notes.size(); ++i)
      f.evidence["note" + std::to_string(i + 1)] = sel.notes[i];
    out.push_back(f);
  }

  static std::string show(const std::optional<std::string>& v) { return v ? *v : "(unset)"; }

  std::string exact_list() const {
    std::string s;
    for (const auto& n : expected) s += (s.empty() ? "" : ",") + n;
    return s;
  }

  void nccl(const std::vector<compat::NicCandidate>& nics) {
    auto v = get("NCCL_SOCKET_IFNAME");
    if (!v && !uses({"nccl", "rccl"})) return;
    int family = compat::socket_family_from(get("NCCL_SOCKET_FAMILY").value_or(""));
    ifname("NCCL_SOCKET_IFNAME", show(v), "NCCL",
           compat::resolve_nccl_socket_ifname(v, nics, family),
           "NCCL_SOCKET_IFNAME==" + exact_list());
  }

  void hccl(const std::vector<compat::NicCandidate>& nics) {
    auto ip = get("HCCL_IF_IP");
    auto name = get("HCCL_SOCKET_IFNAME");
    std::string suggestion =
        address.empty() ? "HCCL_SOCKET_IFNAME==" + expected.front() : "HCCL_IF_IP=" + address;
    if (ip) {
      ifname("HCCL_IF_IP", *ip, "HCCL", compat::resolve_hccl_if_ip(*ip, nics), suggestion);
      if (name) skip("HCCL_SOCKET_IFNAME", "HCCL_IF_IP=" + *ip + " takes precedence over it");
      return;
    }
    if (!name && !uses({"hccl"})) return;
    std::string fam = get("HCCL_SOCKET_FAMILY").value_or("AF_INET");
    ifname("HCCL_SOCKET_IFNAME", show(name), "HCCL",
           compat::resolve_hccl_socket_ifname(name, nics, compat::socket_family_from(fam)),
           suggestion);
  }

  void gloo(const std::vector<compat::NicCandidate>& nics) {
    auto v = get("GLOO_SOCKET_IFNAME");
    if (!v) {
      if (uses({"gloo"}))
        skip("GLOO_SOCKET_IFNAME", "unset: Gloo binds to the address the hostname resolves to");
      return;
    }
    ifname("GLOO_SOCKET_IFNAME", *v, "Gloo", compat::resolve_gloo_socket_ifname(v, nics),
           "GLOO_SOCKET_IFNAME=" + exact_list());
  }

  void ompi(const std::vector<compat::NicCandidate>& nics) {
    auto inc = get("OMPI_MCA_btl_tcp_if_include");
    auto exc = get("OMPI_MCA_btl_tcp_if_exclude");
    if (!inc && !exc && !uses({"mpi"})) return;
    std::string var = inc && exc ? "OMPI_MCA_btl_tcp_if_include+exclude"
                      : exc      ? "OMPI_MCA_btl_tcp_if_exclude"
                                 : "OMPI_MCA_btl_tcp_if_include";
    std::string value = inc && exc ? *inc + " / " + *exc : inc ? *inc : show(exc);
    ifname(var, value, "Open MPI", compat::resolve_ompi_btl_tcp_if(inc, exc, nics),
           "OMPI_MCA_btl_tcp_if_include=" + exact_list() + " with no btl_tcp_if_exclude",
           inc ? "OMPI_MCA_btl_tcp_if_include" : "OMPI_MCA_btl_tcp_if_exclude");
  }

  void ib_hca() {
    auto v = get("NCCL_IB_HCA");
    std::vector<const PlaneView*> params = r.view.of_type(netplane::PlaneType::kParameter);
    bool rdma_plane = std::any_of(params.begin(), params.end(),
                                  [](const PlaneView* p) { return p->plane->rdma.has_value(); });
    if (!v && !(uses({"nccl", "rccl"}) && rdma_plane)) return;
    auto skip_hca = [&](const std::string& reason) {
      out.push_back(make_finding("NET-COMM-IB-HCA", Status::kSkip, "NCCL_IB_HCA",
                                 {{"value", show(v)}, {"reason", reason}}));
    };
    const auto inv = ctx.sources.physical->rdma();
    if (!inv.supported) return skip_hca(inv.unsupported_reason);
    std::vector<compat::HcaPort> want;
    std::vector<compat::HcaPortCandidate> ports;
    for (const auto& d : inv.devices)
      for (const auto& p : d.ports) {
        ports.push_back({d.name, p.port, p.state == "ACTIVE", p.link_layer});
        for (const auto* pv : params) {
          bool named = pv->plane->rdma && !pv->plane->rdma->device.empty();
          bool match = named ? d.name == pv->plane->rdma->device && p.port == pv->plane->rdma->port
                             : port_serves_plane(p, *pv, r.links);
          if (match) want.push_back({d.name, p.port});
        }
      }
    if (want.empty())
      return skip_hca("no RDMA port serves the parameter plane's NIC(s) " + join_list(expected));
    compat::HcaSelection sel = compat::resolve_nccl_ib_hca(v, ports);
    std::vector<std::string> used, wanted;
    bool ok = sel.error.empty() && !sel.ports.empty();
    for (const auto& p : sel.ports) {
      used.push_back(p.str());
      ok = ok && std::find(want.begin(), want.end(), p) != want.end();
    }
    for (const auto& p : want) wanted.push_back(p.str());
    std::string suggestion = "=";
    for (size_t i = 0; i < want.size(); ++i) suggestion += (i ? "," : "") + want[i].str();
    out.push_back(make_finding(
        "NET-COMM-IB-HCA",
        ok              ? Status::kPass
        : sel.automatic ? Status::kWarn
                        : Status::kFail,
        "NCCL_IB_HCA",
        {{"value", show(v)},
         {"selected", sel.error.empty() ? join_list(used) : "no port (" + sel.error + ")"},
         {"expected", join_list(wanted)},
         {"suggestion", suggestion},
         {"origin", origin("NCCL_IB_HCA")}}));
  }
};

}  // namespace

std::vector<Finding> check_comm_env(const NodeContext& ctx) {
  std::vector<Finding> out;
  const auto& lib = ctx.profile->comm.library;
  bool any_set = !ctx.env.empty();
  if (!any_set && lib.empty()) return out;
  // A setting the job file leaves uncertain is reported, never judged as if
  // its value (or its absence) were known.
  CommEnv certain;
  for (const auto& [key, setting] : ctx.env) {
    if (setting.uncertain.empty()) {
      certain[key] = setting;
      continue;
    }
    out.push_back(
        make_finding("NET-COMM-ENV-UNCERTAIN", Status::kWarn, key,
                     {{"var", key}, {"origin", setting.origin}, {"why", setting.uncertain}}));
  }
  NetReadings r = read_net(ctx);
  Judge j{ctx, certain, r, {}, "", out};
  for (const auto* pv : r.view.of_type(netplane::PlaneType::kParameter)) {
    for (const auto& n : pv->nics)
      if (std::find(j.expected.begin(), j.expected.end(), n) == j.expected.end())
        j.expected.push_back(n);
    if (j.address.empty()) j.address = pv->address;
  }
  if (j.expected.empty()) {
    for (const auto& [key, setting] : certain)
      if (key.find("FAMILY") == std::string::npos)
        j.skip(key, "the profile has no parameter plane with a NIC on this node");
    return out;
  }
  auto nics = j.candidates();
  j.nccl(nics);
  j.hccl(nics);
  j.gloo(nics);
  j.ompi(nics);
  j.ib_hca();
  return out;
}

}  // namespace hn::probes
