// Catalog entries about the run itself: deadlines, crashed or failing probes,
// and which entry of the profile's nodes list the run checks.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kRunEntries[] = {
    {"RUN-PROBE-TIMEOUT", Layer::kL7, "probe finished within its deadline",
     "probe {probe} finished within {deadline_ms} ms",
     "probe {probe} did not finish within {limit} and was {action}",
     "Something {probe} touches is blocking (a hung mount, a stuck kernel call or an "
     "unresponsive peer). Investigate that target before running jobs on this node; when "
     "the run's --timeout cut it short, give the run more time."},
    {"RUN-PROBE-ERROR", Layer::kL7, "probe ran", "probe {probe} ran",
     "probe {probe} could not run: {reason}",
     "Fix the cause named in the message and re-run; run with --json for the evidence."},
    {"PROFILE-PLANE-SUBNET", Layer::kL5, "every plane has a subnet", "plane {plane} has a subnet",
     "plane {plane} ({profile}:{line}) has no subnet: its NIC {nic} is checked, but no address "
     "or route can be held to the plane (NET-PLANE-ADDRESS accepts any address, the subnet and "
     "route checks have nothing to compare)",
     "Add the plane's subnet (subnet: 10.10.0.0/24) to the profile."},
    {"PROFILE-NODE", Layer::kL5, "this host is a node of the profile",
     "checked as node {node} of the profile (hostname {hostname})",
     "this host ({hostname}) is none of the {count} nodes {profile} declares ({declared}); the "
     "checks run without a nodes[] entry: NET-PLANE-ADDRESS accepts any address in the plane "
     "subnet instead of the node's own (nodes[].addresses), plane NICs come from planes[].nic "
     "without the node's nodes[].nics override, and the route checks treat every declared "
     "node as a peer",
     "Pass --node NAME with this node's entry, or add this host to the profile's nodes (a name "
     "matches the hostname or its short form)."},
};
}  // namespace

std::span<const CatalogEntry> run() {
  return kRunEntries;
}

}  // namespace hn::reports::catalog_parts
