// Catalog entries for L6 network-plane checks: VLAN and address binding,
// misbinding between planes, routes and policy rules, reply-path sysctls,
// communication-library interface selection, RDMA binding, and cross-node
// consistency.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kNetplaneEntries[] = {
    // ---- binding -------------------------------------------------------
    {"NET-VLAN", Layer::kL6, "plane NIC is the expected VLAN link",
     "{nic} is VLAN {vlan_id} on {parent} as plane {plane} expects",
     "{nic} (plane {plane}) has kind '{kind}', VLAN id {vlan_id} and parent {parent}; plane "
     "{plane} expects a vlan link with id {expected_id} on {expected_parent}",
     "Create the VLAN link with `{command}`, persist it in the network configuration and make "
     "sure the plane's nic (or nodes[].nics) names that link; with a wrong or missing tag the "
     "plane's frames land on another network."},
    {"NET-PLANE-ADDRESS", Layer::kL6, "plane address on the plane NIC",
     "{nic} carries {address}/{prefix_len}, in subnet {subnet} of plane {plane}",
     "{expected} (plane {plane}) is not configured on {searched} (found: {found})",
     "Configure {expected} on {target} in the network configuration, or correct the plane's "
     "nic, subnet and nodes[].addresses in the profile; `ip -br addr show` lists what each NIC "
     "has."},
    {"NET-PLANE-BINDING", Layer::kL6, "plane address bound to the plane NIC only",
     "address {address} of plane {plane} is on {plane_nic} only",
     "address {address} of plane {plane} is on {nic} ({nic_plane}); plane {plane} is bound to "
     "{plane_nic}",
     "Remove it (`ip addr del {address}/{prefix_len} dev {nic}`) and configure it on "
     "{plane_nic} only; otherwise traffic of plane {plane} can leave through {nic}."},
    {"NET-PLANE-SUBNET", Layer::kL6, "plane subnet on the plane NIC only",
     "subnet {subnet} of plane {plane} is configured only on {plane_nic}",
     "subnet {subnet} of plane {plane} is configured on {nic} ({address}, {nic_plane}); plane "
     "{plane} is bound to {plane_nic}",
     "Remove {address}/{prefix_len} from {nic}: with one subnet on two NICs the kernel sends "
     "plane {plane} traffic through whichever connected route comes first."},
    {"NET-PLANE-SHARED-NIC", Layer::kL6, "one NIC per plane", "planes {planes} use distinct NICs",
     "{nic} is the NIC of plane {plane} and of plane {other_plane}",
     "Give each plane its own NIC or VLAN link, in the network configuration and in the "
     "profile's nic / nodes[].nics; planes that share a NIC share its bandwidth and its failures."},
    {"NET-PLANE-PARAM-ON-MGMT", Layer::kL6, "no parameter-plane address on the management NIC",
     "no address of parameter plane {plane} is on management NIC {mgmt_nic} (plane {mgmt_plane})",
     "{address} of parameter plane {plane} is configured on {nic}, the NIC of management plane "
     "{mgmt_plane}; plane {plane} is bound to {plane_nic}",
     "Remove {address}/{prefix_len} from {nic}. Gradient traffic that leaves through the "
     "management NIC congests it and makes collectives time out."},
    // ---- routes --------------------------------------------------------
    {"NET-ROUTE-PEER", Layer::kL6, "plane traffic to a peer leaves through the plane NIC",
     "traffic of plane {plane} to {peer} leaves via {nic} from {source} ({route})",
     "traffic of plane {plane} to {peer} leaves via {nic} from {source}; expected via "
     "{expected_nic} from {expected_source}; the route that won: {route}",
     "Remove or correct the route that won (`ip route get {peer} from {expected_source}` shows "
     "it) so that {peer} is reached through {expected_nic}; look for more specific routes and "
     "for policy rules (`ip rule`)."},
    {"NET-ROUTE-SUBNET", Layer::kL6, "plane subnet routed through the plane NIC",
     "subnet {subnet} of plane {plane} is reached via {nic} from {source} ({route})",
     "subnet {subnet} of plane {plane} is reached via {nic} from {source} ({hop}); expected "
     "on-link via {expected_nic} from {expected_source}; the route that won: {route}",
     "Restore the connected route (`ip route add {subnet} dev {expected_nic} src "
     "{expected_source}`; it also returns when the address is configured again on "
     "{expected_nic}) and remove routes that cover {subnet} through other NICs."},
    {"NET-ROUTE-POLICY", Layer::kL6, "source rules keep each plane on its own gateway",
     "traffic from {address} (plane {plane}) to {target} follows {route}",
     "traffic from {address} (plane {plane}) to {target} leaves via {nic} ({other_plane}) over "
     "{route}; no source rule sends it to {expected_nic}",
     "Give plane {plane} its own table and a source rule: `ip route add default via <plane "
     "gateway> dev {expected_nic} table <T>` and `ip rule add from {address} lookup <T>`."},
    // ---- sysctls -------------------------------------------------------
    {"NET-SYSCTL-RP-FILTER", Layer::kL6, "reverse-path filter suits a multi-homed node",
     "rp_filter on {nic} is {value} ({mode}; the kernel uses max(all={all}, {nic}={iface}))",
     "rp_filter on {nic} is strict (max(all={all}, {nic}={iface}) = 1) on a multi-homed node: "
     "any asymmetric route (a failover, a policy change) makes the kernel drop replies",
     "Use loose mode 2 (or 0): write it to /proc/sys/net/ipv4/conf/all/rp_filter and "
     "/proc/sys/net/ipv4/conf/{nic}/rp_filter and persist it in /etc/sysctl.d; the kernel "
     "applies the larger of the two, so both must be lowered."},
    {"NET-SYSCTL-RP-ASYMMETRIC", Layer::kL6, "strict rp_filter sees symmetric routes",
     "replies arriving on {nic} (plane {plane}) pass strict rp_filter: the routes back leave via "
     "{nic}",
     "rp_filter on {nic} is strict and the route back to {peer} leaves via {route_nic} "
     "({route}): the kernel drops replies from {peer} that arrive on {nic}",
     "Fix the route so that plane {plane} traffic to {peer} leaves via {nic}, or set rp_filter "
     "to 2 (loose) in /proc/sys/net/ipv4/conf/all and /proc/sys/net/ipv4/conf/{nic}."},
    {"NET-SYSCTL-ARP-IGNORE", Layer::kL6, "ARP replies only for the NIC's own addresses",
     "arp_ignore on {nic} is {value} (max(all={all}, {nic}={iface})): {nic} answers ARP only "
     "for its own addresses",
     "arp_ignore on {nic} is {value} (max(all={all}, {nic}={iface})) on a multi-homed node: "
     "{nic} answers ARP for the addresses of other planes, so peers can learn the wrong MAC and "
     "send one plane's traffic into another NIC",
     "Set arp_ignore to 1 in /proc/sys/net/ipv4/conf/all/arp_ignore and "
     "/proc/sys/net/ipv4/conf/{nic}/arp_ignore, persisted in /etc/sysctl.d."},
    {"NET-SYSCTL-ARP-ANNOUNCE", Layer::kL6, "ARP requests carry the outgoing NIC's address",
     "arp_announce on {nic} is {value} (max(all={all}, {nic}={iface})): ARP requests use "
     "{nic}'s own address",
     "arp_announce on {nic} is {value} (max(all={all}, {nic}={iface})) on a multi-homed node: "
     "ARP requests from {nic} may carry another plane's address, and peers then map that "
     "address to {nic}'s MAC",
     "Set arp_announce to 2 in /proc/sys/net/ipv4/conf/all/arp_announce and "
     "/proc/sys/net/ipv4/conf/{nic}/arp_announce, persisted in /etc/sysctl.d."},
    // ---- communication libraries ----------------------------------------
    {"NET-COMM-IFNAME", Layer::kL6, "communication library binds the parameter plane",
     "{var}={value}: {library} uses {selected}, the parameter-plane NIC(s)",
     "{var}={value}: {library} would use {selected_described}, not the parameter-plane NIC(s) "
     "{expected}",
     "Set {var} so that {library} selects only {expected}, for example {suggestion}, in the "
     "job's environment ({origin})."},
    {"NET-COMM-ENV-UNCERTAIN", Layer::kL6, "the job's interface setting is known",
     "{var} ({origin}) is known", "{var} ({origin}) is not judged: {why}",
     "Set {var} to one value for this job (no branch, no run-time lookup), or check the "
     "job's real environment with `hnprecheck node` inside the job."},
    {"NET-COMM-IB-HCA", Layer::kL6, "NCCL uses the parameter plane's RDMA ports",
     "NCCL_IB_HCA={value}: NCCL uses {selected}, the parameter plane's RDMA port(s)",
     "NCCL_IB_HCA={value}: NCCL would use {selected}, not the parameter plane's RDMA port(s) "
     "{expected}",
     "Set NCCL_IB_HCA={suggestion} in the job's environment ({origin}); without '=' a name is a "
     "prefix, so mlx5_1 also selects mlx5_10."},
    // ---- RDMA binding --------------------------------------------------
    {"NET-RDMA-NETDEV", Layer::kL6, "RDMA port bound to the plane NIC",
     "{device} port {port} is bound to {netdev}, the NIC of plane {plane}",
     "{device} port {port} is bound to {netdev}, not to {plane_nic} (plane {plane})",
     "Check which netdev the port drives (`rdma link show`, `ibdev2netdev`) and correct the "
     "plane's nic or rdma.device in the profile, or the cabling."},
    {"NET-RDMA-GID", Layer::kL6, "RoCE GID carries the plane address",
     "{device} port {port} has {gid_type} GID {index} for {address} on {netdev}",
     "{device} port {port} has no {gid_type} GID carrying {address} (plane {plane}); its GIDs: "
     "{gids}",
     "The GID table follows the addresses of the bound netdev: put {address} on {plane_nic} "
     "(or on its VLAN link), then check /sys/class/infiniband/{device}/ports/{port}/gids "
     "(`show_gids`)."},
    {"NET-RDMA-GID-INDEX", Layer::kL6, "RoCE GID index as the profile expects",
     "the {gid_type} GID for {address} is at index {index} as the profile expects",
     "the {gid_type} GID for {address} is at index {index}, the profile expects {expected}",
     "Use index {index} in NCCL_IB_GID_INDEX or the rank table, or correct rdma.gid_index in "
     "the profile; every node of the plane must use the same index."},
    {"NET-RDMA-MTU", Layer::kL6, "RDMA active MTU as the plane expects",
     "{device} port {port} active MTU is {active_mtu} as plane {plane} expects",
     "{device} port {port} active MTU is {active_mtu}, plane {plane} expects {expected}",
     "The RoCE MTU follows the netdev MTU: raise the MTU of {netdev} (4200 carries a 4096 RoCE "
     "MTU) and of the switch ports; `ibv_devinfo -d {device}` shows active_mtu."},
    // ---- cross-node consistency ------------------------------------------
    {"NET-XNODE-COVERAGE", Layer::kL6, "every declared node compared",
     "all {count} nodes the profile declares were compared",
     "{missing_count} of the {count} nodes the profile declares had no snapshot and were not "
     "compared: {missing}",
     "Capture each of them with `hnprecheck snapshot --out FILE` and pass the files too; a node "
     "that was not compared can still differ from the others."},
    {"NET-XNODE-MTU", Layer::kL6, "same plane NIC MTU on every node",
     "plane {plane} NIC MTU is {value} on all {count} nodes",
     "plane {plane} NIC MTU differs across nodes: {values}",
     "Set MTU {majority} on the plane NIC of {odd} (and on its switch port); with mixed MTUs "
     "large packets vanish between some pairs of nodes only."},
    {"NET-XNODE-GID-INDEX", Layer::kL6, "same RoCE GID index on every node",
     "plane {plane} RoCE GID index is {value} on all {count} nodes",
     "plane {plane} RoCE GID index differs across nodes: {values}",
     "Make {odd} expose the plane address at GID index {majority} (the index follows the order "
     "addresses were added to the netdev), or the job's single NCCL_IB_GID_INDEX fails there."},
    {"NET-XNODE-RDMA-MTU", Layer::kL6, "same RDMA active MTU on every node",
     "plane {plane} RDMA active MTU is {value} on all {count} nodes",
     "plane {plane} RDMA active MTU differs across nodes: {values}",
     "Raise the netdev MTU on {odd} so its RDMA active MTU is {majority}; queue pairs between "
     "nodes use the smaller MTU."},
};
}  // namespace

std::span<const CatalogEntry> netplane() {
  return kNetplaneEntries;
}

}  // namespace hn::reports::catalog_parts
