// Catalog entries of `hnprecheck certify`: the run across ranks (phases,
// lost ranks), the cross-host checks, links and collectives per plane, the
// traffic proof, slow links, storage under load, and placement. A finding's
// layer is the catalog's; run-level codes (CERT-*) are re-layered by the
// phase that reports them.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kCertifyEntries[] = {
    // ---- the run ---------------------------------------------------------
    {"CERT-PHASE-SKIPPED", Layer::kL5, "phase ran", "phase {phase} ran",
     "phase {phase} did not run: {reason}",
     "Fix what the phase depends on (named in the message) and run certify again."},
    {"CERT-COVERAGE", Layer::kL5, "the run covered everything this cluster can run",
     "complete: every phase this cluster can run ran ({ran}); not applicable to this "
     "profile: {not_applicable}",
     "partial: not covered: {gaps}",
     "What was not covered was not certified: run certify without --only/--skip, with a rank "
     "on every host of the cluster (more than one host for the links between them), and with "
     "the profile's model section or --layout where the default model does not fit."},
    {"CERT-RANK-LOST", Layer::kL5, "every rank took part in the phase",
     "all {ranks} ranks took part in phase {phase}",
     "rank {rank} on {host} was lost in phase {phase}: {how}",
     "Look at {host}: why rank {rank} {cause} (its log, `dmesg` for the OOM killer, a hung "
     "mount or driver). The phases before {phase} are complete in this report; run certify "
     "again once {host} is healthy."},
    {"CERT-RANK-ERROR", Layer::kL5, "every rank ran its part of the phase",
     "rank {rank} ran its part of phase {phase}",
     "rank {rank} on {host} could not run its part of phase {phase}: {detail}",
     "Fix the cause named in the message on {host} and run certify again."},
    {"CERT-RUN-TIMEOUT", Layer::kL5, "phase started within the run's --timeout",
     "phase {phase} started within the run's --timeout",
     "phase {phase} did not start: the run's --timeout of {timeout_s} s ran out",
     "Give the run more time (--timeout), or run the remaining phases alone (--only {phase})."},

    // ---- across hosts (phase cross_host) ------------------------------------
    {"CERT-XHOST-SAME-NODE", Layer::kL5, "each host is its own profile node",
     "the {hosts} hosts of the job resolve to {hosts} different profile nodes",
     "{count} hosts resolve to profile node {node}: {members}",
     "Give every host its own hostname, matching its nodes[] entry: two hosts taken for one "
     "node are certified as one, and what differs between them is never compared."},
    {"CERT-XHOST-COVERAGE", Layer::kL5, "every declared node is in the job",
     "all {count} nodes the profile declares are in the job",
     "{missing_count} of the {count} nodes the profile declares are not in the job and were "
     "not certified: {missing}",
     "Start certify with a rank on each of them (srun -w, an mpirun hostfile, more indexed "
     "pods), or remove retired nodes from the profile."},
    {"NET-XHOST-ADDRESS-DUP", Layer::kL6, "every plane address on one host only",
     "the {count} addresses of plane {plane} are each on one host",
     "address {address} of plane {plane} is configured on {hosts_count} hosts: {members}",
     "Give each host its own address on plane {plane} (and in nodes[].addresses): peers reach "
     "whichever host answered ARP last, so traffic for one host lands on another."},
    {"NET-XHOST-SUBNET", Layer::kL6, "plane address inside the plane's subnet",
     "{nic} carries {address}, inside {subnets} of plane {plane}",
     "{nic} (plane {plane}) carries {address}, outside the plane's subnet(s) {subnets}",
     "Re-address {nic} into {subnets}, or correct the plane's subnet in the profile: the other "
     "hosts route {subnets} through plane {plane} and cannot reach {address} that way."},

    // ---- links per plane (phase links) -------------------------------------
    {"COMM-LINK-PLANE", Layer::kL3, "links of the plane connect",
     "{pairs} links between {ranks} ranks on {hosts} host(s) of plane {plane} connected and "
     "authenticated (ring neighbours and log2 partners; median connect {connect_ms} ms)",
     "{failed} of {pairs} links of plane {plane} failed: {classes}",
     "Each failed pair has its own COMM-LINK-* finding naming both hosts and addresses; fix "
     "those first, then run certify again."},
    {"COMM-LINK-BIND", Layer::kL3, "rank can bind the plane address",
     "rank {rank} binds {address} on {nic} for plane {plane}",
     "rank {rank} cannot bind plane {plane}: {detail}",
     "Configure the plane address on the plane NIC (see NET-PLANE-ADDRESS for this host), or "
     "correct the plane's nic, subnet and nodes[].addresses in the profile."},
    {"COMM-LINK-REFUSED", Layer::kL3, "plane link connects",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) connected on plane {plane}",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) on plane {plane}: connection "
     "refused after {attempts} attempt(s) in {elapsed_ms} ms",
     "Something on {to_host} rejects connections to {to_address} (a firewall REJECT rule for "
     "the port range, or the listener is gone): check `nft list ruleset` / `iptables -S` on "
     "{to_host} and allow the plane's subnet."},
    {"COMM-LINK-TIMEOUT", Layer::kL3, "plane link connects",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) connected on plane {plane}",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) on plane {plane}: no answer "
     "within the link-setup budget of {budget_ms} ms ({attempts} attempt(s))",
     "Packets between {from_address} and {to_address} are dropped silently: a firewall DROP "
     "rule, an ACL on the switch, or a blackhole route on either host. Test with `ping -I "
     "{from_address} {to_ip}` on {from_host} and `ip route get {to_ip} from {from_ip}`."},
    {"COMM-LINK-NO-ROUTE", Layer::kL3, "plane link connects",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) connected on plane {plane}",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) on plane {plane}: no route to "
     "the peer",
     "{from_host} has no usable route to {to_ip} from {from_ip} (an unreachable or prohibit "
     "route, a missing subnet route, or the host is down): `ip route get {to_ip} from "
     "{from_ip}` on {from_host} shows which."},
    {"COMM-LINK-AUTH", Layer::kL3, "plane link authenticates",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) authenticated on plane {plane}",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) on plane {plane}: the peer "
     "failed authentication: {detail}",
     "The answer did not come from this job's rank: another job (or an old run) owns the "
     "port, or the ranks were started with different HN_TOKEN or job ids."},
    {"COMM-LINK-FAILED", Layer::kL3, "plane link connects",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) connected on plane {plane}",
     "{from_host} ({from_address}) -> {to_host} ({to_address}) on plane {plane}: {detail}",
     "Fix the cause named in the message on {from_host} or {to_host} and run certify again."},

    // ---- collectives per plane (phase collectives) -------------------------------
    {"COMM-COLL-CORRECT", Layer::kL3, "collective results are right",
     "{op} on plane {plane}: {sizes} size(s) up to {max_size} on {ranks} ranks, every element "
     "verified",
     "{op} on plane {plane}: {wrong} wrong element(s) (sizes {bad_sizes})",
     "Wrong data over links that work points at memory or NIC corruption: run `hnprecheck "
     "bench --op {op}` between pairs of hosts to find the one that corrupts."},
    {"COMM-COLL-FAILED", Layer::kL3, "collectives complete",
     "the collectives of plane {plane} completed",
     "the collectives of plane {plane} failed: {detail}",
     "Fix the cause named in the message (a hung rank, a link that broke mid-run) and run "
     "certify again; `hnprecheck bench` between the same hosts reproduces it on its own."},
    {"COMM-COLL-BUSBW", Layer::kL3, "collective bus bandwidth",
     "{op} on plane {plane}: busbw {busbw} GB/s at {size} on {ranks} ranks ({limit_text})",
     "{op} on plane {plane}: busbw {busbw} GB/s at {size} on {ranks} ranks, below the "
     "minimum of {limit} GB/s ({limit_text})",
     "Find the slow part: COMM-LINK-SLOW names a slow host or link; otherwise check the plane "
     "NICs' speed and MTU (NET-XNODE-MTU), PFC/ECN settings, and CPU load on the hosts."},
    {"NET-TRAFFIC-PLANE", Layer::kL6, "collective traffic leaves through the plane NIC",
     "{share}% of the {expected} the collectives of plane {plane} sent to other hosts left "
     "through {plane_nic}",
     "only {share}% of the {expected} the collectives of plane {plane} sent to other hosts "
     "left through {plane_nic}; {carrier} carried {carrier_bytes}",
     "A route sends plane {plane} traffic out of {carrier}: look for a more specific route "
     "(a /32) or a policy rule for the peers' plane addresses (`ip route get <peer> from "
     "{address}`, `ip rule`), remove it or route the plane subnet through {plane_nic}."},
    {"COMM-LINK-SLOW", Layer::kL3, "no slow host, pair or group on the plane",
     "plane {plane}: {links} directed links between {hosts} hosts measured, none below "
     "{fraction} of the healthy level {reference} GB/s{dismissed_text}",
     "plane {plane}: {what} at {value} GB/s against {against} {expected} GB/s ({ratio} of "
     "it); {second}",
     "Check {suspect}: for a host, its plane NIC's speed and duplex (`ethtool`), errors and "
     "drops (`ip -s link`), a shaper or policer (`tc qdisc show`), the cable and the switch "
     "port; for a pair or a group, the switch path between them (uplinks, ECMP hashing, a "
     "policer on the port)."},
    {"COMM-LINK-LINE-RATE", Layer::kL3, "links reach their share of the NICs' line rate",
     "plane {plane}: the healthy links run at {reference} GB/s, {percent}% of the {line} line "
     "rate ({line_source}; at least {floor_percent}% expected; {second})",
     "plane {plane}: the best links run at {reference} GB/s, only {percent}% of the {line} "
     "line rate ({line_source}; at least {floor_percent}% expected; {second})",
     "Every link is slow alike, so no one host or pair stands out: check the plane's switch "
     "(port speeds, congestion, PFC pause storms), the hosts' CPU load and interrupt "
     "placement, and the NICs' offloads. If one TCP stream cannot fill this NIC, set the "
     "plane's link_line_fraction from a healthy run."},
    {"NET-TRAFFIC-PAIR", Layer::kL6, "every measured pair's traffic crosses the plane NICs",
     "{host}: the {sent} it sent to {peers} peer(s) in the bandwidth rounds left through "
     "{plane_nic} ({share}% of it counted there), and the {received} it received arrived "
     "there; its other NICs sent at most {other} meanwhile (an upper bound on plane bytes "
     "that left elsewhere)",
     "{from} -> {to} on plane {plane}: {problem}",
     "A route, policy rule or source address sends this pair's plane {plane} traffic "
     "outside {plane_nic}: on {from}, compare `ip route get {to_ip} from {from_ip}` and "
     "`ip rule` (ipproto, fwmark, uidrange, to/from selectors) with the plane's subnet, "
     "remove what sends it elsewhere, and run certify again."},

    // ---- storage under load (phase storage) -------------------------------------
    {"STOR-AGGREGATE", Layer::kL7, "shared storage latency across hosts",
     "{path} {workload} on {hosts} host(s) at once: p50 {p50_ms} ms, p99 {p99_ms} ms, p99.9 "
     "{p999_ms} ms over {samples} operations (worst host {worst_host}: p99 {worst_p99_ms} ms)",
     "{path} {workload} on {hosts} host(s) at once: {problem}",
     "See the per-host STOR-JITTER-* findings for the host that stands out."},
    {"STOR-UNDER-LOAD", Layer::kL7, "storage latency while collectives run",
     "{path} {workload}: p99 {load_ms} ms while collectives ran on plane {plane}, {alone_ms} "
     "ms alone ({ratio}x; {limit_text})",
     "{path} {workload}: p99 {load_ms} ms while collectives ran on plane {plane}, {alone_ms} "
     "ms alone ({ratio}x, above the {level} limit of {limit}x)",
     "Storage and plane {plane} interfere (a shared NIC, uplink or switch buffer): move "
     "storage traffic to its own plane or NIC, or give it a separate traffic class (PFC/ETS "
     "priority), then run certify again."},
    {"COMM-BUSBW-UNDER-LOAD", Layer::kL3, "bus bandwidth while storage is busy",
     "{op} on plane {plane}: busbw {load} GB/s at {size} while the storage workload ran, "
     "{alone} GB/s alone ({ratio}x; {limit_text})",
     "{op} on plane {plane}: busbw {load} GB/s at {size} while the storage workload ran, "
     "{alone} GB/s alone ({ratio}x, below the {level} limit of {limit}x)",
     "Checkpoint and data-loading I/O slows the collectives: give storage its own plane or "
     "NIC (or a lower-priority traffic class) so gradient traffic keeps its bandwidth."},

    // ---- placement (phase placement) ------------------------------------------
    {"SCHED-TP-DOMAIN", Layer::kL5, "tensor-parallel groups within one high-speed domain",
     "{groups} tensor-parallel group(s) of {size} rank(s) each lie within one domain",
     "tensor-parallel group {group} (ranks {ranks}) spans {domains} (hosts {hosts})",
     "Place each tensor-parallel group on hosts of one topology domain: order the launcher's "
     "hosts by domain (a hostfile, `srun --distribution=block` over a domain-ordered "
     "nodelist) or change the layout so that tp fits in a domain."},
    {"SCHED-RANKS-PER-HOST", Layer::kL5, "same number of ranks on every host",
     "{hosts} host(s) with {per_host} rank(s) each", "ranks per host differ: {counts}",
     "Start the same number of ranks on every host (--ntasks-per-node, ppr:N:node): the "
     "host with more ranks shares its NICs among more of them and slows every collective."},
};
}  // namespace

std::span<const CatalogEntry> certify() {
  return kCertifyEntries;
}

}  // namespace hn::reports::catalog_parts
