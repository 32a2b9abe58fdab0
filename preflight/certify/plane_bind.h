#pragma once
// How this rank binds a plane: the host's plane address (nodes[].addresses,
// else the plane NIC's address in the plane subnet) and the NIC that carries
// it, read live (links, addresses and routes of this network namespace).
// When the host has no usable address, `error` says why (the hosts phase's
// NET-PLANE-ADDRESS has the details). Also: every plane NIC of this host,
// for the traffic proof, and the bound NIC's live link speed (the line rate
// the bandwidth phase's absolute reference uses).

#include <string>
#include <vector>

#include "drivers/cluster/link_mesh.h"
#include "preflight/certify/state.h"

namespace hn::preflight::certify {

struct PlaneBinding {
  drivers::cluster::LinkBind bind;
  std::vector<std::string> nics;  // the plane's NICs on this host
  int speed_mbps = 0;             // the bound NIC's sysfs speed; 0 when unknown
};

PlaneBinding plane_binding(const RankState& st, const std::string& plane);

}  // namespace hn::preflight::certify
