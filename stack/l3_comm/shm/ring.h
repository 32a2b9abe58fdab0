#pragma once
// Shared-memory layout of the shm transport. Each rank owns one memfd
// segment: a doorbell, then one single-producer/single-consumer byte ring per
// sender. head and tail are running byte counts on separate cache lines;
// the producer only writes head, the consumer only tail. The data starts in
// head's cache line, right after it: a small message and the head that
// publishes it reach the consumer in one cache-line transfer, not two.
//
// Doorbell protocol (lost-wakeup free, and silent while nobody sleeps): a
// waiter increments `sleepers`, reads `bell`, re-checks its rings, then
// futex-waits while bell is unchanged. A producer/consumer publishes
// head/tail, issues a full fence, and only if `sleepers` is non-zero bumps
// `bell` and calls futex_wake. Spinning peers never touch the bell line.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hn::stack::comm::shm {

struct alignas(64) Doorbell {
  std::atomic<std::uint32_t> bell{0};
  std::atomic<std::uint32_t> sleepers{0};
};

// Placed at a 64-byte boundary (ring_of); the data follows head directly.
struct RingHeader {
  std::atomic<std::uint64_t> tail{0};  // bytes consumed (consumer)
  char pad_[56];
  std::atomic<std::uint64_t> head{0};  // bytes written (producer)
};

inline constexpr std::size_t kRingHeaderBytes = sizeof(RingHeader);
static_assert(offsetof(RingHeader, head) == 64 && kRingHeaderBytes == 72);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

// Realignment: at the start of a collective both ends round their counter
// (producer: head, consumer: tail) up to a multiple of the capacity once it
// has moved more than realign_after(capacity) into the ring. They do it at the
// same stream position (a collective consumes exactly what it sends) with the
// same rule, so the stream stays consistent, and small collectives keep
// reusing the first bytes of the ring, which are hot in both caches, without
// paying two extra stores and a doorbell check on every call. The skipped
// bytes count as written, so the producer never overtakes data the consumer
// has not read.
inline std::size_t realign_after(std::size_t capacity) {
  return std::min<std::size_t>(capacity / 4, 16u << 10);
}
//
// Segment: [Doorbell][RingHeader + data(capacity)] x world, 4 KiB aligned rings.
inline std::size_t ring_stride(std::size_t capacity) {
  return (kRingHeaderBytes + capacity + 4095) / 4096 * 4096;
}
inline std::size_t segment_bytes(int world, std::size_t capacity) {
  return 4096 + static_cast<std::size_t>(world) * ring_stride(capacity);
}
inline Doorbell* doorbell_of(void* seg) {
  return static_cast<Doorbell*>(seg);
}
inline RingHeader* ring_of(void* seg, int sender, std::size_t capacity) {
  return reinterpret_cast<RingHeader*>(static_cast<std::byte*>(seg) + 4096 +
                                       static_cast<std::size_t>(sender) * ring_stride(capacity));
}
inline std::byte* ring_data(RingHeader* r) {
  return reinterpret_cast<std::byte*>(r) + kRingHeaderBytes;
}

// Rings the bell of the process that owns `d`.
void ring_bell(Doorbell* d);

}  // namespace hn::stack::comm::shm
