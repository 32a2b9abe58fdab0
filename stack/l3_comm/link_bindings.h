#pragma once
// Where each rank's peer links are really bound, read back from the kernel
// (getsockname, SO_BINDTODEVICE) rather than from what was asked for, so an
// operator and a test can see which local address and NIC carry a job's
// traffic. TCP links only: shm pairs have no socket and are not listed.

#include <chrono>
#include <string>
#include <vector>

#include "stack/l3_comm/communicator.h"

namespace hn::stack::comm {

struct LinkBinding {
  int rank = 0;
  int peer = 0;
  std::string local;   // getsockname: "10.10.0.1:41234"
  std::string remote;  // getpeername
  std::string device;  // SO_BINDTODEVICE NIC, "" when the socket is not bound to one
  std::string nic;     // the NIC holding the local address ("" if none does)
};

// This rank's TCP links, by peer.
std::vector<LinkBinding> local_link_bindings(const Communicator& c);

// Every rank's links, ordered by rank then peer, on rank 0 (other ranks get
// their own): each rank publishes its list through the rendezvous store and
// rank 0 reads them all. Collective (every rank calls it once after
// construction). Throws what Store::get throws (TimeoutError after
// `timeout`, PeerDiedError).
std::vector<LinkBinding> gather_link_bindings(Communicator& c, std::chrono::milliseconds timeout);

}  // namespace hn::stack::comm
