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

CommEnv collect_comm_env(const char* const* envp, const compat::EnvFile* file) {
  CommEnv env;
  const auto& keys = comm_env_keys();
  for (; envp && *envp; ++envp) {
    std::string entry = *envp;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string key = entry.substr(0, eq);
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      env[key] = {entry.substr(eq + 1), "environment"};
  }
  if (file)
    for (const auto& e : file->entries)
      if (std::find(keys.begin(), keys.end(), e.key) != keys.end())
        env[e.key] = {e.value, file->source + ":" + std::to_string(e.line)};
  return env;
}

}  // namespace hn::probes
