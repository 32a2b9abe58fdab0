#pragma once
// TCP device: a full mesh of authenticated sockets. Each rank listens on its
// plane address (LinkParams::bind_address, else the address it reaches the
// rendezvous from; bind_interface pins the NIC), publishes it in the store,
// connects to every lower rank and accepts every higher one. wait() is one
// poll(2) over the sockets of interest plus an eventfd for interrupt().

#include <memory>

#include "stack/l3_comm/transport.h"

namespace hn::stack::comm::tcp {

// Throws LinkError/TimeoutError/AuthError naming the peer that failed.
std::unique_ptr<Device> create_device(const DeviceSetup& setup);

}  // namespace hn::stack::comm::tcp
