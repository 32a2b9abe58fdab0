// A loopback TCP port for a rendezvous that child processes will bind.
//
// The port is chosen at random below Linux's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default) and
// checked free by binding it once. Below that range no outgoing connection
// of a test running in parallel can take it, which both earlier schemes
// allowed: a random port in 31000-41000 overlapped the range (mpi_test
// failed in CI), and a kernel-chosen port (bind to 0) lies inside it and was
// taken by another socket between the check and the child's bind
// (certify_cli_test failed in CI). A window remains only against another
// test drawing the same random port within it.
// Throws std::runtime_error if no free port is found in 200 draws.
#pragma once

#include <string>

namespace hn::test {

int free_loopback_port();

// "127.0.0.1:<free_loopback_port()>".
std::string free_loopback_rendezvous();

}  // namespace hn::test
