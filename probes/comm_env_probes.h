#pragma once
// Which NICs the job's communication libraries would really use, resolved
// with each library's grammar (compat/ifname_grammar.h, ib_hca_grammar.h)
// over this node's NICs, judged against the parameter plane(s):
//   NET-COMM-IFNAME  NCCL_SOCKET_IFNAME (every match is used),
//                    HCCL_IF_IP, else HCCL_SOCKET_IFNAME (first match only),
//                    GLOO_SOCKET_IFNAME (exact names), Open MPI
//                    btl_tcp_if_include/_exclude (names and CIDR);
//   NET-COMM-IB-HCA  NCCL_IB_HCA against the parameter plane's RDMA ports.
// A variable that is set and selects anything but parameter-plane NICs is a
// FAIL naming the NIC the library would pick. An unset variable is judged
// only when the profile's comm.library uses it: its automatic choice is a
// WARN when wrong (the job may still set it; pass --env to check that).

#include <vector>

#include "probes/node_context.h"
#include "reports/finding.h"

namespace hn::probes {

std::vector<reports::Finding> check_comm_env(const NodeContext& ctx);

}  // namespace hn::probes
