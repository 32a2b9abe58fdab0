#include <poll.h>

// The sparse link mesh over real loopback sockets, every rank a thread with
// its own store client (the mesh's own keys and the rank's authentication).
#include "drivers/cluster/link_mesh.h"
#include "stack/l3_comm/auth.h"

#include <catch2/catch.hpp>
#include <future>
#include <map>
#include <thread>

#include "drivers/cluster/link_pattern.h"
#include "tests/preflight/certify/store_harness.h"
#include "tests/support/ports.h"

using namespace hn;
using drivers::cluster::LinkMesh;
using drivers::cluster::MeshSetup;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

MeshSetup setup(test::StoreHarness& h, int rank, int world, const std::string& prefix) {
  MeshSetup s;
  s.rank = rank;
  s.world = world;
  s.store = &h.store(rank);
  s.prefix = prefix;
  s.creds = h.creds;
  s.params.connect_timeout = milliseconds(3000);
  s.params.plane = "test";
  s.bind.address = "127.0.0.1";
  s.deadline = Clock::now() + milliseconds(10000);
  return s;
}

std::vector<std::unique_ptr<LinkMesh>> build_all(test::StoreHarness& h, int world,
                                                 const std::vector<int>& ranks,
                                                 const std::string& prefix,
                                                 const std::map<int, std::string>& unbound = {}) {
  std::vector<std::future<std::unique_ptr<LinkMesh>>> f;
  for (int r : ranks)
    f.push_back(std::async(std::launch::async, [&, r] {
      auto s = setup(h, r, world, prefix);
      if (unbound.count(r)) s.bind.error = unbound.at(r);
      return LinkMesh::build(s);
    }));
  std::vector<std::unique_ptr<LinkMesh>> out;
  for (auto& x : f) out.push_back(x.get());
  return out;
}

}  // namespace

TEST_CASE("link mesh: every pair of the pattern connects, authenticated - rounds measure links") {
  const int n = 6;
  test::StoreHarness h(n);
  std::vector<int> all = {0, 1, 2, 3, 4, 5};
  auto meshes = build_all(h, n, all, "links/a");
  long long pairs = 0;
  for (int r = 0; r < n; ++r) {
    for (const auto& o : meshes[static_cast<std::size_t>(r)]->outcomes()) {
      INFO(r << " -> " << o.to << ": " << o.status << " " << o.detail);
      CHECK(o.status == "ok");
      CHECK(o.from == r);
      CHECK(o.to > r);
      ++pairs;
    }
    for (int p : drivers::cluster::link_peers(r, n))
      CHECK(meshes[static_cast<std::size_t>(r)]->connected(p));
  }
  CHECK(pairs == drivers::cluster::link_pair_count(n));
  // Every pair of every matching round exchanges both ways at once.
  std::uint32_t tag = 0;
  for (const auto& round : drivers::cluster::matching_rounds(n)) {
    ++tag;
    std::vector<std::future<drivers::cluster::Exchange>> f;
    std::vector<std::pair<int, int>> ends;
    for (const auto& [a, b] : round)
      for (auto [me, peer] : {std::pair{a, b}, std::pair{b, a}}) {
        ends.emplace_back(me, peer);
        f.push_back(std::async(std::launch::async, [&, me, peer] {
          return meshes[static_cast<std::size_t>(me)]->exchange(peer, tag, true, milliseconds(50),
                                                                Clock::now() + milliseconds(5000));
        }));
      }
    for (std::size_t i = 0; i < f.size(); ++i) {
      auto x = f[i].get();
      INFO("round " << tag << " " << ends[i].first << " <- " << ends[i].second << ": " << x.error);
      CHECK(x.error.empty());
      CHECK(x.peer == ends[i].second);
      CHECK(x.rx_gbps > 0);
      CHECK(x.received > 0);
      CHECK(x.sent > 0);
    }
  }
}

TEST_CASE("link mesh: a one-way exchange is bracketed by before/after, and a dead link names why") {
  const int n = 2;
  test::StoreHarness h(n);
  auto meshes = build_all(h, n, {0, 1}, "links/x");
  // 0 sends, 1 only receives. Each end's `after` runs only once the peer has
  // every byte of its stream, so the sender's count is final by then.
  std::vector<std::string> log0, log1;
  auto a = std::async(std::launch::async, [&] {
    return meshes[0]->exchange(
        1, 7, true, milliseconds(50), Clock::now() + milliseconds(5000),
        [&] { log0.push_back("before"); }, [&] { log0.push_back("after"); });
  });
  auto b = std::async(std::launch::async, [&] {
    return meshes[1]->exchange(
        0, 7, false, milliseconds(50), Clock::now() + milliseconds(5000),
        [&] { log1.push_back("before"); }, [&] { log1.push_back("after"); });
  });
  auto x0 = a.get(), x1 = b.get();
  INFO(x0.error << " / " << x1.error);
  REQUIRE(x0.error.empty());
  REQUIRE(x1.error.empty());
  CHECK(x0.sent > 0);
  CHECK(x0.received == 0);
  CHECK(x0.rx_gbps == 0);
  CHECK(x1.sent == 0);
  CHECK(x1.received == x0.sent);
  CHECK(x1.rx_gbps > 0);
  CHECK(log0 == std::vector<std::string>{"before", "after"});
  CHECK(log1 == std::vector<std::string>{"before", "after"});
  CHECK_THAT(meshes[1]->peer_address(0), Catch::StartsWith("127.0.0.1:"));

  // Out of step (different round tags): both ends fail naming the rounds,
  // and the link stays closed for later rounds.
  auto c = std::async(std::launch::async, [&] {
    return meshes[0]->exchange(1, 8, true, milliseconds(20), Clock::now() + milliseconds(3000));
  });
  auto d = std::async(std::launch::async, [&] {
    return meshes[1]->exchange(0, 9, true, milliseconds(20), Clock::now() + milliseconds(3000));
  });
  auto y0 = c.get(), y1 = d.get();
  CHECK_THAT(y0.error, Catch::Contains("out of step at the ready token"));
  CHECK_THAT(y1.error, Catch::Contains("out of step"));
  auto z = meshes[0]->exchange(1, 10, true, milliseconds(20), Clock::now() + milliseconds(1000));
  CHECK_THAT(z.error, Catch::Contains("closed by an earlier failure"));
  CHECK(meshes[0]->peer_address(1).empty());
}

TEST_CASE("link mesh: a refused peer and an impostor are classified, naming the pair") {
  // Ranks 0 and 1 are real; rank 2 publishes a port nobody listens on, and
  // rank 3 answers with another job's token.
  const int n = 4;
  test::StoreHarness h(n);
  namespace comm = stack::comm;
  comm::LinkParams lp;
  test::ClosedPort closed;
  h.store(2).set("links/b/addr/2", "127.0.0.1|" + std::to_string(closed.port()) + "|");
  h.store(2).set("links/b/tried/2", "1");
  comm::Fd impostor = comm::listen_on("127.0.0.1", 0, lp, {});
  h.store(3).set("links/b/addr/3",
                 "127.0.0.1|" + std::to_string(comm::local_port_of(impostor.get())) + "|");
  h.store(3).set("links/b/tried/3", "1");
  auto fake = std::async(std::launch::async, [&] {
    comm::Credentials other = h.creds;
    other.token = "another job";
    for (int i = 0; i < 2; ++i) try {
        comm::Fd fd = comm::accept_until(impostor.get(), Clock::now() + milliseconds(5000), {});
        // The accepting side of the v2 handshake, holding another job's token.
        comm::set_nonblocking(fd.get(), true);
        comm::AcceptorHandshake hs(fd.get(), other, 3, "certify-link");
        const auto end = Clock::now() + milliseconds(3000);
        while (hs.advance() == comm::AcceptorHandshake::State::kPending && Clock::now() < end) {
          pollfd p{fd.get(), static_cast<short>(hs.wants_write() ? POLLOUT : POLLIN), 0};
          ::poll(&p, 1, 50);
        }
      } catch (const comm::CommError&) {
      }
  });
  auto meshes = build_all(h, n, {0, 1}, "links/b");
  fake.get();
  std::map<std::pair<int, int>, std::string> status;
  for (const auto& m : meshes)
    for (const auto& o : m->outcomes()) status[{o.from, o.to}] = o.status;
  CHECK(status[{0, 1}] == "ok");
  CHECK(status[{0, 2}] == "refused");
  CHECK(status[{1, 2}] == "refused");
  CHECK(status[{0, 3}] == "auth");
  CHECK(status[{1, 3}] == "auth");
}

TEST_CASE("link mesh: a rank that cannot bind the plane says so - its peers do not wait for it") {
  const int n = 3;
  test::StoreHarness h(n);
  const auto t0 = Clock::now();
  auto meshes = build_all(h, n, {0, 1, 2}, "links/c", {{1, "no address of plane test"}});
  CHECK(Clock::now() - t0 < milliseconds(3000));
  CHECK(meshes[1]->bind().error == "no address of plane test");
  for (const auto& o : meshes[1]->outcomes()) CHECK(o.status == "unbound");
  for (const auto& o : meshes[0]->outcomes())
    CHECK(o.status == (o.to == 1 ? "peer_unbound" : "ok"));
}

TEST_CASE("link mesh: silent strangers on a listener do not hold up a peer's link") {
  // Rank 1 accepts rank 0. Before rank 0 connects, four strangers connect to
  // rank 1's listener and say nothing. Handshakes run side by side, so rank
  // 0 gets through at once; an acceptor that took one handshake at a time
  // would hold rank 0 behind each stranger's 3 s handshake timeout (12 s,
  // past rank 0's 5 s), so the bound below only separates "waited for a
  // stranger" from "did not".
  const int n = 2;
  test::StoreHarness h(n);
  namespace comm = stack::comm;
  auto mesh1 =
      std::async(std::launch::async, [&] { return LinkMesh::build(setup(h, 1, n, "links/s")); });
  const std::string addr = h.store(0).get("links/s/addr/1", milliseconds(5000));  // ip|port|nic
  const int port = std::stoi(addr.substr(addr.find('|') + 1));
  comm::LinkParams lp;
  std::vector<comm::Fd> strangers;
  for (int i = 0; i < 4; ++i)
    strangers.push_back(comm::connect_with_retry("127.0.0.1", port, lp, {}));
  std::this_thread::sleep_for(milliseconds(200));  // the strangers are accepted first
  const auto t0 = Clock::now();
  comm::Fd fd = comm::connect_with_retry("127.0.0.1", port, lp, {});
  comm::authenticate(fd.get(), h.creds, "certify-link", 0, 1, Clock::now() + milliseconds(5000),
                     {});
  const auto took = Clock::now() - t0;
  h.store(0).set("links/s/tried/0", "1");
  auto m1 = mesh1.get();
  CHECK(took < milliseconds(2500));
  CHECK(m1->connected(0));
}
