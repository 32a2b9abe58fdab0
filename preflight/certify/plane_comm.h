#pragma once
// A communicator of every rank on one plane: its peer links bind the
// host's plane address (not the NIC: like NCCL's socket transport, the
// kernel's routing then decides where the bytes go, which is what the
// traffic proof checks). Its rendezvous is a second store on rank 0, on a
// port rank 0 publishes through the control store ("coll/<plane>/rdv").
// Collective: every rank calls it for the same plane. Throws
// std::runtime_error when this host cannot bind the plane, and what the
// Communicator throws (LinkError, AuthError, TimeoutError) otherwise.

#include <memory>
#include <string>
#include <vector>

#include "preflight/certify/state.h"
#include "stack/l3_comm/collectives.h"

namespace hn::preflight::certify {

struct PlaneComm {
  std::unique_ptr<comm::Communicator> comm;
  std::vector<std::string> nics;  // the plane's NICs on this host
  std::string address;            // the bound plane address
};

// `purpose` keeps communicators of one plane apart ("coll": the
// collectives', reused by storage under load; "model": the model step's).
PlaneComm make_plane_comm(RankState& st, const std::string& plane, milliseconds link_budget,
                          Deadline deadline, const std::string& purpose = "coll");

// Collective options whose timeout runs to `deadline` (at least 1 ms).
comm::Options until(Deadline deadline);

}  // namespace hn::preflight::certify
