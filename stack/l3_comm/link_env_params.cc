#include "stack/l3_comm/link_env_params.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>

#include "compat/input_error.h"
#include "compat/translate/link_env.h"
#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/local_nics.h"

namespace hn::stack::comm {

namespace {

using std::chrono::milliseconds;

int family_of(const std::string& ip) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, ip.c_str(), buf) == 1) return AF_INET;
  if (inet_pton(AF_INET6, ip.c_str(), buf) == 1) return AF_INET6;
  return AF_UNSPEC;
}

std::string nic_names(const std::vector<compat::NicCandidate>& nics) {
  std::vector<std::string> names;
  for (const auto& n : nics) {
    std::string s = n.name;
    for (const auto& a : n.addresses) s += " " + a;
    names.push_back(s);
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

[[noreturn]] void no_interface(const std::string& what, const LinkParams& p,
                               const std::vector<compat::NicCandidate>& nics) {
  ErrorContext ctx;
  ctx.plane = p.plane;
  ctx.operation = "link setup parameters";
  throw LinkError(LinkError::Kind::kNoInterface,
                  what + "; this node has: " + nic_names(nics) + " (no fallback to another NIC)",
                  ctx);
}

const compat::NicCandidate* find_nic(const std::string& name,
                                     const std::vector<compat::NicCandidate>& nics) {
  for (const auto& n : nics)
    if (n.name == name) return &n;
  return nullptr;
}

// The address a link bound to `nic` uses: IPv4 first unless the family says
// otherwise. "" when the NIC has none of the family.
std::string address_of(const compat::NicCandidate& nic, int family) {
  for (int want : {AF_INET, AF_INET6}) {
    if (family != AF_UNSPEC && family != want) continue;
    for (const auto& a : nic.addresses)
      if (family_of(a) == want) return a;
  }
  return "";
}

void apply_budget(const EnvMap& env, const compat::translate::LinkEnv& le, LinkParams& p) {
  if (le.retry_sleep_ms) p.retry_sleep = milliseconds(*le.retry_sleep_ms);
  if (le.retry_count) {
    p.retry_count = *le.retry_count;
    p.retry_source = "NCCL_SOCKET_RETRY_CNT=" + std::to_string(*le.retry_count);
  } else if (le.connect_timeout_s) {
    p.retry_count = LinkParams::kNoRetryLimit;
    p.retry_source = "HCCL_CONNECT_TIMEOUT alone: retry until the budget ends";
  }
  auto deadline = le.link_deadline_s();
  if (!deadline) return;
  p.connect_timeout = milliseconds(std::llround(*deadline * 1000));
  std::optional<double> hccl;
  if (le.connect_timeout_s) hccl = *le.connect_timeout_s + le.kHcclExtraWaitS;
  if (*deadline >= le.kMaxLinkDeadlineS) {
    p.budget_source =
        std::string(le.connect_timeout_s ? "HCCL_CONNECT_TIMEOUT" : "NCCL_SOCKET_RETRY_CNT") +
        " asks for more than a day: capped at 86400 s";
  } else if (hccl && *hccl <= *deadline) {
    p.budget_source = "HCCL_CONNECT_TIMEOUT=" + env.at("HCCL_CONNECT_TIMEOUT") + " + 20 s";
  } else {
    p.budget_source = "NCCL_SOCKET_RETRY_CNT=" + std::to_string(*le.retry_count) +
                      " x NCCL_SOCKET_RETRY_SLEEP_MSEC=" +
                      (le.retry_sleep_ms ? std::to_string(*le.retry_sleep_ms) : "100 (default)") +
                      " linear back-off";
  }
}

void bind_cli(const LinkOverrides& cli, LinkParams& p,
              const std::vector<compat::NicCandidate>& nics) {
  p.bind_address = cli.bind_address;
  p.bind_interface = cli.bind_interface;
  std::string src;
  if (!cli.bind_interface.empty()) src = "--bind-interface " + cli.bind_interface;
  if (!cli.bind_address.empty())
    src += (src.empty() ? "" : ", ") + std::string("--bind-address ") + cli.bind_address;
  p.bind_source = src;
  if (!cli.bind_address.empty()) {
    int fam = family_of(cli.bind_address);
    if (fam == AF_UNSPEC)
      throw compat::InputError("command line", 0, 0, "--bind-address",
                               "'" + cli.bind_address + "': expected an IPv4 or IPv6 address");
    std::string holder = nic_holding(cli.bind_address, nics);
    if (holder.empty())
      no_interface("--bind-address " + cli.bind_address + ": no local NIC holds it", p, nics);
    if (!cli.bind_interface.empty() && holder != cli.bind_interface)
      no_interface("--bind-address " + cli.bind_address + " is on " + holder + ", not on " +
                       cli.bind_interface,
                   p, nics);
    if (p.family == AF_UNSPEC) p.family = fam;
    return;
  }
  const auto* nic = find_nic(cli.bind_interface, nics);
  if (!nic) no_interface("--bind-interface " + cli.bind_interface + ": no such NIC", p, nics);
  p.bind_address = address_of(*nic, p.family);
  if (p.bind_address.empty())
    no_interface("--bind-interface " + cli.bind_interface + " has no usable address", p, nics);
}

void bind_env(const compat::translate::LinkEnv& le, LinkParams& p,
              const std::vector<compat::NicCandidate>& nics) {
  if (!le.if_ip.empty()) {
    int fam = family_of(le.if_ip);
    if (fam == AF_UNSPEC)
      throw compat::InputError("environment", 0, 0, "HCCL_IF_IP",
                               "'" + le.if_ip + "': expected an IPv4 or IPv6 address");
    if (p.family != AF_UNSPEC && p.family != fam)
      throw compat::InputError("environment", 0, 0, "HCCL_IF_IP",
                               "'" + le.if_ip + "' is not of the family " + le.socket_family);
    auto sel = compat::resolve_hccl_if_ip(le.if_ip, nics);
    if (!sel.error.empty()) no_interface("HCCL_IF_IP=" + le.if_ip + ": " + sel.error, p, nics);
    p.bind_address = le.if_ip;
    p.family = fam;
    p.bind_source = "HCCL_IF_IP=" + le.if_ip + " (on " + sel.nics.front() + ")";
    return;
  }
  if (le.ifname_spec.empty()) return;
  const bool hccl = le.ifname_var == "HCCL_SOCKET_IFNAME";
  const int fam = compat::socket_family_from(le.socket_family);
  auto sel = hccl ? compat::resolve_hccl_socket_ifname(le.ifname_spec, nics, fam ? fam : 4)
                  : compat::resolve_nccl_socket_ifname(le.ifname_spec, nics, fam);
  if (sel.automatic) return;  // NCCL ignores a one-character value: as if unset
  if (!sel.error.empty() || sel.nics.empty())
    no_interface(sel.error.empty() ? le.ifname_var + "=" + le.ifname_spec + " matches no interface"
                                   : sel.error,
                 p, nics);
  const std::string pick = *std::min_element(
      sel.nics.begin(), sel.nics.end(),
      [](const std::string& a, const std::string& b) { return compat::hccl_name_before(a, b); });
  const int family = hccl && !fam ? AF_INET : p.family;
  p.bind_interface = pick;
  p.bind_address = address_of(*find_nic(pick, nics), family);
  if (p.bind_address.empty())
    no_interface(
        le.ifname_var + "=" + le.ifname_spec + " selects " + pick + ", which has no usable address",
        p, nics);
  p.bind_source = le.ifname_var + "=" + le.ifname_spec + " (first match: " + pick + ")";
}

}  // namespace

LinkParams link_params_from_env(const EnvMap& env, const std::vector<compat::NicCandidate>& nics,
                                const LinkOverrides& cli, LinkParams defaults) {
  const auto le = compat::translate::link_env_from(env);
  LinkParams p = std::move(defaults);
  apply_budget(env, le, p);
  if (cli.connect_timeout) {
    if (cli.connect_timeout->count() <= 0)
      throw compat::InputError("command line", 0, 0, "--timeout", "must be positive");
    p.connect_timeout = *cli.connect_timeout;
    p.budget_source = "--timeout";
  }
  if (!le.socket_family.empty()) p.family = le.socket_family == "AF_INET6" ? AF_INET6 : AF_INET;
  if (!cli.bind_address.empty() || !cli.bind_interface.empty())
    bind_cli(cli, p, nics);
  else
    bind_env(le, p, nics);
  return p;
}

EnvMap environment_map(char** envp) {
  EnvMap m;
  for (char** e = envp; e && *e; ++e) {
    std::string s = *e;
    auto eq = s.find('=');
    if (eq == std::string::npos) continue;
    m.emplace(s.substr(0, eq), s.substr(eq + 1));
  }
  return m;
}

}  // namespace hn::stack::comm
