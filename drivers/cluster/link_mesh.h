#pragma once
// One rank's links on one plane, in the sparse pattern of link_pattern.h,
// each bound to the plane's NIC and address, authenticated with the job
// token, and with every failure classified (refused, timeout, no route,
// auth, ...). Built from the L3 socket and auth functions, not a
// Communicator: no full mesh, no store server of its own.
//
// build(): listens on the plane address (SO_BINDTODEVICE on the plane NIC),
// publishes "<prefix>/addr/<rank>" in the store ("ip|port|nic", or
// "!reason" when this rank cannot bind the plane), connects to its higher
// peers concurrently (connect_with_retry under `params`: budget, retries,
// binding) while accepting its lower peers, then publishes
// "<prefix>/tried/<rank>". Accepting ends when every lower peer connected
// or published that it tried, or at `deadline`. Every rank of the world
// must call it (collectively) with the same prefix. It never throws for a
// link's failure (that is an outcome); it throws CommError only when the
// store itself fails.
//
// exchange(peer, ...): one timed round with one peer, which calls
// exchange(this rank, ...) at the same time with the same tag. Both ends
// swap a ready token, then each streams length-prefixed 256 KiB frames for
// `duration` if it sends (else only the end frame), then each confirms it
// received the other's end. `before` runs before this end's ready token
// leaves and `after` once the peer confirmed every byte of ours arrived, so
// a caller reading NIC counters in them brackets exactly this round's
// bytes on this host (the peer streams only after it got our token). The
// figure is the receiver's, bytes / (last byte - first byte). Returns by
// `deadline`; a link that fails or misses it is closed, and later
// exchanges over it fail at once naming the first error.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stack/l3_comm/auth.h"
#include "stack/l3_comm/link_params.h"
#include "stack/l3_comm/socket.h"
#include "stack/l3_comm/store.h"

namespace hn::drivers::cluster {

namespace comm = stack::comm;

// How this rank binds the plane; `error` set when it cannot (no address).
struct LinkBind {
  std::string address;
  std::string nic;
  std::string error;
};

struct LinkOutcome {
  int from = -1, to = -1;  // from: the connecting (lower) rank
  // ok, refused, timeout, no_route, auth, failed; unbound (from cannot
  // bind the plane), peer_unbound (to cannot): those are COMM-LINK-BIND's.
  std::string status;
  std::string detail;
  std::string from_address, to_address;  // "ip" / "ip:port"
  double connect_ms = 0;
  int attempts = 0;
  long long budget_ms = 0, elapsed_ms = 0;
};

struct MeshSetup {
  int rank = 0, world = 1;
  comm::Store* store = nullptr;
  std::string prefix;  // store keys, unique per plane and run
  comm::Credentials creds;
  comm::LinkParams params;  // budget and retries; binding is taken from `bind`
  LinkBind bind;
  comm::Deadline deadline;
  // SO_BINDTODEVICE on the plane NIC as well as the address. false binds
  // only the address, as NCCL and HCCL bind their sockets: routes and
  // policy rules then apply as they do to the job, which is what the
  // bandwidth phase's traffic proof must see.
  bool bind_device = true;
};

// One exchange's outcome at this end.
struct Exchange {
  int peer = -1;
  long long sent = 0;      // payload bytes this end streamed to the peer
  long long received = 0;  // payload bytes that arrived from the peer
  double rx_gbps = 0;      // peer -> this end, 10^9 bytes per second (0: nothing sent)
  std::string error;       // non-empty: the round failed (no figure)
};

class LinkMesh {
 public:
  static std::unique_ptr<LinkMesh> build(const MeshSetup& setup);
  ~LinkMesh();

  const LinkBind& bind() const { return bind_; }
  // The pairs this rank connected (it is their lower rank), in peer order.
  const std::vector<LinkOutcome>& outcomes() const { return outcomes_; }
  bool connected(int peer) const { return socks_.count(peer) > 0; }

  // The peer's address as this end's socket sees it ("ip:port"); "" when
  // not connected. A peer whose packets arrive from an address other than
  // its plane address is sending from the wrong source.
  std::string peer_address(int peer) const;

  Exchange exchange(int peer, std::uint32_t tag, bool send, std::chrono::milliseconds duration,
                    comm::Deadline deadline, const std::function<void()>& before = {},
                    const std::function<void()>& after = {});

 private:
  LinkMesh() = default;
  int rank_ = 0, world_ = 1;
  LinkBind bind_;
  std::vector<LinkOutcome> outcomes_;
  std::map<int, comm::Fd> socks_;
  std::map<int, std::string> broken_;  // peer -> the error that closed its link
};

// "refused", "timeout", ... for a LinkError kind.
std::string link_status_name(comm::LinkError::Kind kind);

}  // namespace hn::drivers::cluster
