#pragma once
// The communication-library settings a job will run with: the variables the
// L6 interface checks judge, taken from the process environment and from the
// job's own file (`hnprecheck node --env FILE`: an env file, a Slurm or shell
// launch script, or a manifest, read by the same reader as `translate`; its
// settings win over the process environment, which in a Prolog is not the
// job's). Each value remembers where it came from, for the report; a value
// the file sets only on some paths, or only at run time, is marked
// uncertain and is not judged as if it were known.

#include <map>
#include <string>
#include <vector>

#include "compat/translate/env_entry.h"

namespace hn::probes {

struct EnvSetting {
  std::string value;
  std::string origin;     // "environment" or "job.env:3"
  std::string uncertain;  // why the value is not known for sure; empty when it is
  bool operator==(const EnvSetting&) const = default;
};
using CommEnv = std::map<std::string, EnvSetting>;

// NCCL_SOCKET_IFNAME, NCCL_SOCKET_FAMILY, NCCL_IB_HCA, HCCL_SOCKET_IFNAME,
// HCCL_IF_IP, HCCL_SOCKET_FAMILY, GLOO_SOCKET_IFNAME,
// OMPI_MCA_btl_tcp_if_include, OMPI_MCA_btl_tcp_if_exclude.
const std::vector<std::string>& comm_env_keys();

// envp: a NULL-terminated "KEY=value" array (environ); job may be null.
CommEnv collect_comm_env(const char* const* envp, const compat::translate::EnvInput* job);

}  // namespace hn::probes
