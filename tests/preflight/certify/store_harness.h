#pragma once
// An in-process rendezvous for certify's unit tests: rank 0's store server
// on 127.0.0.1 and one authenticated client per rank (the product's own
// TcpStoreServer and TcpStoreClient), so gather and the link mesh run over
// real sockets without forking.
#include <memory>
#include <vector>

#include "stack/l3_comm/tcp_store_client.h"
#include "stack/l3_comm/tcp_store_server.h"

namespace hn::test {

class StoreHarness {
 public:
  explicit StoreHarness(int world) {
    namespace comm = stack::comm;
    creds.token = "certify-test-token";
    creds.job_id = "certify-test";
    creds.world = world;
    comm::LinkParams p;
    p.connect_timeout = std::chrono::milliseconds(5000);
    comm::Fd listener = comm::listen_on("127.0.0.1", 0, p, {});
    port = comm::local_port_of(listener.get());
    server = std::make_unique<comm::TcpStoreServer>(std::move(listener), creds, p.connect_timeout,
                                                    "test");
    for (int r = 0; r < world; ++r)
      clients.push_back(std::make_unique<comm::TcpStoreClient>("127.0.0.1", port, p, creds, r));
  }
  ~StoreHarness() {
    for (auto& c : clients) c->close(true);
    clients.clear();
    server.reset();
  }
  stack::comm::Store& store(int rank) { return *clients.at(static_cast<std::size_t>(rank)); }

  stack::comm::Credentials creds;
  int port = 0;
  std::unique_ptr<stack::comm::TcpStoreServer> server;
  std::vector<std::unique_ptr<stack::comm::TcpStoreClient>> clients;
};

}  // namespace hn::test
