#include "stack/l3_comm/shm/pair.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

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
                 RingHeader* outbound, Doorbell* peer_bell, std::size_t capacity, std::size_t piece)
    : peer_(peer),
      peer_pid_(peer_pid),
      in_(inbound),
      own_bell_(own_bell),
      out_(outbound),
      peer_bell_(peer_bell),
      cap_(capacity),
      mask_(capacity - 1),
      piece_(piece) {}

void ShmPair::realign() {
  const std::uint64_t round = ~static_cast<std::uint64_t>(mask_);  // cap is a power of two
  std::uint64_t head = out_->head.load(std::memory_order_relaxed);
  std::uint64_t aligned = (head + mask_) & round;
  if (aligned != head) out_->head.store(aligned, std::memory_order_release);
  std::uint64_t tail = in_->tail.load(std::memory_order_relaxed);
  aligned = (tail + mask_) & round;
  if (aligned != tail) {
    in_->tail.store(aligned, std::memory_order_release);
    ring_bell(peer_bell_);  // the peer may wait for the space we just skipped
  }
}

bool ShmPair::can_send() const {
  return out_->head.load(std::memory_order_relaxed) - out_->tail.load(std::memory_order_acquire) <
         cap_;
}

bool ShmPair::can_recv() const {
  // tail may be ahead of head for a moment: we realigned, the producer not yet.
  return in_->head.load(std::memory_order_acquire) > in_->tail.load(std::memory_order_relaxed);
}

std::size_t ShmPair::try_send(const std::byte* data, std::size_t n) {
  // Publish in pieces so the receiver starts reducing while we still copy.
  std::size_t sent = 0;
  std::uint64_t head = out_->head.load(std::memory_order_relaxed);
  while (sent < n) {
    std::uint64_t tail = out_->tail.load(std::memory_order_acquire);
    // head may run up to a ring ahead of a consumer that has not realigned yet.
    std::size_t used = static_cast<std::size_t>(head - tail);
    std::size_t space = used >= cap_ ? 0 : cap_ - used;
    std::size_t len = std::min({n - sent, space, piece_});
    if (len == 0) break;
    std::size_t pos = static_cast<std::size_t>(head) & mask_;
    std::size_t first = std::min(len, cap_ - pos);
    std::byte* ring = ring_data(out_);
    std::memcpy(ring + pos, data + sent, first);
    if (first < len) std::memcpy(ring, data + sent + first, len - first);
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
    std::memcpy(dst + off, p, len);
  });
}

}  // namespace hn::stack::comm::shm
