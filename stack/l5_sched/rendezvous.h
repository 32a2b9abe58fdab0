#pragma once
// Where rank 0's rendezvous store listens. First match wins:
//   1. --rendezvous HOST:PORT (the option; "[v6addr]:port" for IPv6)
//   2. HN_RENDEZVOUS=HOST:PORT (set by our local launcher)
//   3. MASTER_ADDR + MASTER_PORT (torchrun, and anyone who exports them)
//   4. the first host of SLURM_JOB_NODELIST, port default_port (Slurm runs
//      rank 0 on the first node of the allocation)
//   5. 127.0.0.1:default_port when the launcher says every rank is on this
//      host (Open MPI's LOCAL_SIZE == SIZE, or a single rank)
// Malformed values throw compat::InputError naming the option or variable;
// no source at all throws compat::InputError telling what to pass.

#include <string>

#include "stack/l5_sched/identity.h"

namespace hn::stack::sched {

struct Endpoint {
  std::string host;
  int port = 0;
  std::string source;  // "--rendezvous", "MASTER_ADDR/MASTER_PORT", ...
};

inline constexpr int kDefaultRendezvousPort = 29517;

// "host:port" or "[v6]:port"; field names the option/variable for errors.
Endpoint parse_endpoint(const std::string& text, const std::string& field);

Endpoint resolve_rendezvous(const EnvLookup& env, const Identity& id, const std::string& option,
                            int default_port = kDefaultRendezvousPort);

}  // namespace hn::stack::sched
