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

// A loopback port where a connection is refused, for as long as this object
// lives. It holds a socket bound to 127.0.0.1 that never listens: a SYN there
// gets a reset, and no other socket can take the port meanwhile (no
// SO_REUSEADDR, and connect() never picks a bound port as its source). The
// earlier "bind, read the port, close" left the port free for a test running
// in parallel to take, which turned "refused" into "timeout" in CI-like runs
// (link_mesh_test). Throws std::runtime_error if the socket cannot be bound.
class ClosedPort {
 public:
  ClosedPort();
  ~ClosedPort();
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace hn::test
