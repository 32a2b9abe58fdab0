#include "probes/comm_env.h"

#include <algorithm>

namespace hn::probes {

const std::vector<std::string>& comm_env_keys() {
  static const std::vector<std::string> keys = {"NCCL_SOCKET_IFNAME",
                                                "NCCL_SOCKET_FAMILY",
                                                "NCCL_IB_HCA",
                                                "HCCL_SOCKET_IFNAME",
                                                "HCCL_IF_IP",
                                                "HCCL_SOCKET_FAMILY",
                                                "GLOO_SOCKET_IFNAME",
                                                "OMPI_MCA_btl_tcp_if_include",
                                                "OMPI_MCA_btl_tcp_if_exclude"};
  return keys;
}

CommEnv collect_comm_env(const char* const* envp, const compat::translate::EnvInput* job) {
  CommEnv env;
  const auto& keys = comm_env_keys();
  for (; envp && *envp; ++envp) {
    std::string entry = *envp;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string key = entry.substr(0, eq);
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      env[key] = {entry.substr(eq + 1), "environment", ""};
  }
  if (!job) return env;
  auto known = [&](const std::string& k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  for (const auto& e : job->entries) {
    if (!known(e.name)) continue;
    EnvSetting s{e.value, e.where(), ""};
    if (e.conditional) {
      std::string alts;
      for (const auto& a : e.alternatives)
        alts += (alts.empty() ? "" : ", ") + a.value + " (" + a.where() +
                (a.condition.empty() ? "" : ", " + a.condition) + ")";
      if (e.maybe_unset) alts += ", or unset";
      s.uncertain = "it depends on the path the script takes: " + alts;
    } else if (e.dynamic) {
      s.uncertain = "its value is only known at run time (" + e.raw + ")";
    }
    env[e.name] = s;
  }
  for (const auto& n : job->notes)
    if (known(n.name) && !env.count(n.name))
      env[n.name] = {"", n.where(), "the file sets it in a form that was not read: " + n.why};
  return env;
}

}  // namespace hn::probes
