#include "stack/l3_comm/shm/pair.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "stack/l4_operator/reduce.h"

namespace hn::stack::comm::shm {

void ring_bell(Doorbell* d) {
  // Pairs with the waiter's sleepers increment (see ring.h): after our
  // head/tail store, either we see the sleeper, or it sees our store.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (d->sleepers.load(std::memory_order_relaxed) == 0) return;
  d->bell.fetch_add(1, std::memory_order_seq_cst);
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&d->bell), FUTEX_WAKE, INT_MAX, nullptr,
          nullptr, 0);
}

ShmPair::ShmPair(int peer, int peer_pid, RingHeader* inbound, Doorbell* own_bell,
                 RingHeader* outbound, Doorbell* peer_bell, std::size_t capacity, std::size_t piece,
                 MailSlot* mail_in, MailSlot* mail_out)
    : peer_(peer),
      peer_pid_(peer_pid),
      in_(inbound),
      own_bell_(own_bell),
      out_(outbound),
      peer_bell_(peer_bell),
      cap_(capacity),
      mask_(capacity - 1),
      piece_(piece),
      mail_in_(mail_in),
      mail_out_(mail_out) {}

void ShmPair::realign() {
  const std::uint64_t round = ~static_cast<std::uint64_t>(mask_);  // cap is a power of two
  const std::uint64_t after = realign_after(cap_);
  std::uint64_t head = out_->head.load(std::memory_order_relaxed);
  if ((head & mask_) > after) out_->head.store((head + mask_) & round, std::memory_order_release);
  std::uint64_t tail = in_->tail.load(std::memory_order_relaxed);
  if ((tail & mask_) > after) {
    in_->tail.store((tail + mask_) & round, std::memory_order_release);
    ring_bell(peer_bell_);  // the peer may wait for the space we just skipped
  }
}

bool ShmPair::can_send() const {
  const std::uint64_t tail = out_->tail.load(std::memory_order_acquire);
  tail_seen_ = tail;
  return out_->head.load(std::memory_order_relaxed) - tail < cap_;
}

bool ShmPair::can_recv() const {
  const std::uint64_t next = mail_read_ + 1;
  if (mail_in_[next % kMailSlots].seq.load(std::memory_order_acquire) == next) return true;
  // tail may be ahead of head for a moment: we realigned, the producer not yet.
  return in_->head.load(std::memory_order_acquire) > in_->tail.load(std::memory_order_relaxed);
}

void ShmPair::mail_send(const std::byte* data, std::size_t n) {
  if (n > kMailBytes) throw std::logic_error("shm mail message larger than a slot");
  const std::uint64_t m = ++mail_sent_;
  MailSlot& slot = mail_out_[m % kMailSlots];
  std::memcpy(slot.data, data, n);
  slot.seq.store(m, std::memory_order_release);
  ring_bell(peer_bell_);
}

bool ShmPair::try_mail_recv(std::size_t n, const RecvSink& sink) {
  const std::uint64_t m = mail_read_ + 1;
  const MailSlot& slot = mail_in_[m % kMailSlots];
  if (slot.seq.load(std::memory_order_acquire) != m) return false;
  sink(slot.data, n);
  mail_read_ = m;
  return true;
}

std::size_t ShmPair::try_send(const std::byte* data, std::size_t n) {
  // Publish in pieces so the receiver starts reducing while we still copy.
  std::size_t sent = 0;
  std::uint64_t head = out_->head.load(std::memory_order_relaxed);
  while (sent < n) {
    // The consumer's tail is read again only when the last one seen does not
    // leave room: it lives on a line the consumer writes, so each read may
    // cost a transfer. head may run up to a ring ahead of a consumer that has
    // not realigned yet.
    std::size_t want = std::min(n - sent, piece_);
    std::uint64_t used = head - tail_seen_;
    if (used + want > cap_) {
      tail_seen_ = out_->tail.load(std::memory_order_acquire);
      used = head - tail_seen_;
    }
    std::size_t space = used >= cap_ ? 0 : cap_ - static_cast<std::size_t>(used);
    std::size_t len = std::min(want, space);
    if (len == 0) break;
    std::size_t pos = static_cast<std::size_t>(head) & mask_;
    std::size_t first = std::min(len, cap_ - pos);
    std::byte* ring = ring_data(out_);
    op::copy_bytes(ring + pos, data + sent, first);
    if (first < len) op::copy_bytes(ring, data + sent + first, len - first);
    head += len;
    sent += len;
    out_->head.store(head, std::memory_order_release);
    ring_bell(peer_bell_);
  }
  return sent;
}

template <typename Fn>
std::size_t ShmPair::consume(std::size_t n, Fn&& fn) {
  std::size_t got = 0;
  std::uint64_t tail = in_->tail.load(std::memory_order_relaxed);
  while (got < n) {
    std::uint64_t head = in_->head.load(std::memory_order_acquire);
    if (head <= tail) break;  // empty (or the producer has not realigned yet)
    std::size_t len = std::min({n - got, static_cast<std::size_t>(head - tail), piece_});
    if (len == 0) break;
    std::size_t pos = static_cast<std::size_t>(tail) & mask_;
    std::size_t first = std::min(len, cap_ - pos);
    const std::byte* ring = ring_data(in_);
    fn(ring + pos, first, got);
    if (first < len) fn(ring, len - first, got + first);
    tail += len;
    got += len;
    in_->tail.store(tail, std::memory_order_release);
    ring_bell(peer_bell_);
  }
  return got;
}

std::size_t ShmPair::try_recv(std::size_t n, const RecvSink& sink) {
  return consume(n, [&](const std::byte* p, std::size_t len, std::size_t) { sink(p, len); });
}

std::size_t ShmPair::try_recv_into(std::byte* dst, std::size_t n) {
  return consume(n, [&](const std::byte* p, std::size_t len, std::size_t off) {
    op::copy_bytes(dst + off, p, len);
  });
}

}  // namespace hn::stack::comm::shm
