#pragma once
// The link-setup contract (compat/translate/link_env.h) wired into L3: turns
// the environment `hnprecheck translate` writes, this node's NICs and the
// command line's explicit choices into the LinkParams every link uses.
//
// Precedence, per setting: an explicit command-line value, else the
// environment, else `defaults` (the command's own, e.g. bench's --timeout
// default).
//   budget    --timeout > HCCL_CONNECT_TIMEOUT + 20 s and/or the NCCL retry
//             schedule's total sleep N(N+1)/2 * S (both set: the smaller) > default
//   attempts  NCCL_SOCKET_RETRY_CNT + 1; HCCL_CONNECT_TIMEOUT alone: no limit
//             but the budget (HCCL keeps retrying); neither: the default
//   sleep     NCCL_SOCKET_RETRY_SLEEP_MSEC, else the default (100 ms); linear
//   binding   --bind-address / --bind-interface (either replaces the
//             environment's binding) > HCCL_IF_IP > HCCL_SOCKET_IFNAME >
//             NCCL_SOCKET_IFNAME > none (the kernel's routing decides)
//   family    HCCL_SOCKET_FAMILY > NCCL_SOCKET_FAMILY > the address's own
// An interface spec is resolved with its library's grammar
// (compat/ifname_grammar.h: HCCL's reading for HCCL_SOCKET_IFNAME, with
// AF_INET unless a family is set; NCCL's for NCCL_SOCKET_IFNAME, where a
// one-character value counts as unset) and the FIRST match in HCCL's name
// order (others by name, then docker*, then lo) is bound: SO_BINDTODEVICE on
// it, and its address (IPv4 first unless the family says otherwise) as the
// source and published address of the peer links.
//
// Throws compat::InputError (file "environment" or "command line", field =
// the variable or option) for a malformed value, and LinkError kNoInterface
// for a binding that names nothing on this node: a spec that matches no NIC,
// an HCCL_IF_IP / --bind-address no local NIC holds, a NIC without an
// address of the family. Never falls back to another NIC.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compat/ifname_grammar.h"
#include "stack/l3_comm/link_params.h"

namespace hn::stack::comm {

using EnvMap = std::map<std::string, std::string>;

// The command line's explicit link options; unset / "" = not given.
struct LinkOverrides {
  std::optional<std::chrono::milliseconds> connect_timeout;  // --timeout
  std::string bind_address;                                  // --bind-address
  std::string bind_interface;                                // --bind-interface
};

LinkParams link_params_from_env(const EnvMap& env, const std::vector<compat::NicCandidate>& nics,
                                const LinkOverrides& cli = {}, LinkParams defaults = {});

// "KEY=value" entries (environ) as a map; entries without '=' are skipped.
EnvMap environment_map(char** envp);

}  // namespace hn::stack::comm
