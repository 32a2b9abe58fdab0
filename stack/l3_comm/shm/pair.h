#pragma once
// Shared-memory pair: two SPSC rings in memfd segments mapped by both ranks
// (ours receives from the peer, the peer's receives from us). A send copies
// once from the user buffer into the peer's ring; a receive reduces or copies
// straight out of the ring - no kernel copy per byte. The peer's death is
// learnt from the rendezvous watch channel (device interrupt), since a ring
// cannot tell. Messages of up to kMailBytes may also go through the
// mailbox (ring.h), one cache line each.

#include "stack/l3_comm/shm/ring.h"
#include "stack/l3_comm/transport.h"

namespace hn::stack::comm::shm {

class ShmPair : public Pair {
 public:
  ShmPair(int peer, int peer_pid, RingHeader* inbound, Doorbell* own_bell, RingHeader* outbound,
          Doorbell* peer_bell, std::size_t capacity, std::size_t piece, MailSlot* mail_in,
          MailSlot* mail_out);
  int peer() const override { return peer_; }
  std::string address() const override { return "shm pid " + std::to_string(peer_pid_); }
  std::size_t try_send(const std::byte* data, std::size_t n) override;
  std::size_t try_recv(std::size_t n, const RecvSink& sink) override;
  std::size_t try_recv_into(std::byte* dst, std::size_t n) override;
  std::size_t mail_bytes() const override { return kMailBytes; }
  void mail_send(const std::byte* data, std::size_t n) override;
  bool try_mail_recv(std::size_t n, const RecvSink& sink) override;
  bool can_send() const;
  bool can_recv() const;
  // Both ends call this between collectives (each at the same stream
  // position: everything sent before was consumed before): the next bytes
  // go to the front of the ring. See ring.h.
  void realign();

 private:
  template <typename Fn>
  std::size_t consume(std::size_t n, Fn&& fn);
  int peer_, peer_pid_;
  RingHeader* in_;
  Doorbell* own_bell_;
  RingHeader* out_;
  Doorbell* peer_bell_;
  std::size_t cap_, mask_, piece_;
  mutable std::uint64_t tail_seen_ = 0;  // the consumer's tail, as last read
  MailSlot* mail_in_;                    // the peer's slots in our segment
  MailSlot* mail_out_;                   // our slots in the peer's segment
  std::uint64_t mail_sent_ = 0, mail_read_ = 0;
};

}  // namespace hn::stack::comm::shm
