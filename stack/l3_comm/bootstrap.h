#pragma once
// Glue from "who started us" (L5) to a communicator's options: identity,
// rendezvous address, job token and id, and the inherited store socket of
// the local launcher.
//   token: HN_TOKEN, else the first line of token_file; required when world > 1,
//          and refused when too weak (auth.h token_problem: exit 2 naming the rule)
//   job id: the launcher's (sched::Identity::job_id), else "default"
//   store socket: HN_STORE_FD on rank 0 when our local launcher started us
// Throws compat::InputError naming the variable/option that is wrong.

#include <optional>
#include <string>

#include "stack/l3_comm/communicator.h"
#include "stack/l5_sched/identity.h"
#include "stack/l5_sched/rendezvous.h"

namespace hn::stack::comm {

struct BootstrapInputs {
  std::string rendezvous;         // --rendezvous HOST:PORT ("" = from the environment)
  std::string token_file;         // --token-file PATH ("" = HN_TOKEN)
  std::optional<int> world_size;  // --world-size (Kubernetes indexed jobs)
};

struct Bootstrap {
  sched::Identity identity;
  sched::Endpoint rendezvous;
  CommOptions options;
};

Bootstrap bootstrap_from_env(const sched::EnvLookup& env, const BootstrapInputs& in);

}  // namespace hn::stack::comm
