#pragma once
// This node's NICs as the comm libraries see them (getifaddrs), for
// resolving interface settings to a binding and for naming the NIC a socket
// is bound to. Link-local IPv6 addresses are left out: a socket cannot bind
// one without a scope, so they never make a NIC usable for links.

#include <string>
#include <vector>

#include "compat/ifname_grammar.h"

namespace hn::stack::comm {

// Every interface of this network namespace, with its index, IFF_UP and its
// IPv4/IPv6 addresses (bare text). Throws std::system_error if getifaddrs fails.
std::vector<compat::NicCandidate> local_nic_candidates();

// The name of the NIC holding `ip` (textual compare after normalising), or "".
std::string nic_holding(const std::string& ip, const std::vector<compat::NicCandidate>& nics);

}  // namespace hn::stack::comm
