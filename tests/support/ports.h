// A loopback TCP port that is free right now, chosen by the kernel.
//
// Tests that hand a rendezvous address to child processes used to pick a
// random port in 31000-41000; that range overlaps Linux's ephemeral range
// (32768-60999), so under ctest -j an outgoing connection of another test
// could hold the port and the store's bind failed. Binding port 0 asks the
// kernel for one nobody holds; the socket is closed before returning, so a
// window remains, but only against another bind of the same fresh port.
// Throws std::runtime_error if no socket can be bound.
#pragma once

#include <string>

namespace hn::test {

int free_loopback_port();

// "127.0.0.1:<free_loopback_port()>".
std::string free_loopback_rendezvous();

}  // namespace hn::test
