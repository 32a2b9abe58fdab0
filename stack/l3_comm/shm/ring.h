#pragma once
// Shared-memory layout of the shm transport. Each rank owns one memfd
// segment: a doorbell, a mailbox per sender (below), then one
// single-producer/single-consumer byte ring per sender. head and tail are running byte counts on
// separate cache lines; the producer only writes head, the consumer only tail. The data starts in
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

// Mailbox: two one-line slots per sender for messages of up to kMailBytes
// (flat_allreduce.h). A slot holds a sequence number and the message in the
// same cache line, so a message reaches its reader in one line transfer;
// through a ring, the head's line and the data's line are two once the
// stream has moved past the head's line. The sender writes message m (m =
// 1, 2, ... per pair) into slot m % 2 and publishes m in its seq; the reader
// waits for seq == m. Only a pattern in which every mail collective
// exchanges a message with every peer may use it: then the sender of m has
// received the reader's message of the previous mail collective, which the
// reader sent only after it had read m - 2, so slot m % 2 is free without
// any acknowledgement. The rings and the mailbox are separate streams; both
// ends run the same schedule, so they use them in the same order.
inline constexpr std::size_t kMailBytes = 56;
inline constexpr std::size_t kMailSlots = 2;
struct alignas(64) MailSlot {
  std::atomic<std::uint64_t> seq{0};
  std::byte data[kMailBytes];
};
static_assert(sizeof(MailSlot) == 64);

// Segment: [Doorbell][MailSlot x 2 x world] padded to 4 KiB, then
// [RingHeader + data(capacity)] x world, 4 KiB aligned rings.
inline std::size_t header_bytes(int world) {
  return (64 + static_cast<std::size_t>(world) * kMailSlots * sizeof(MailSlot) + 4095) / 4096 *
         4096;
}
inline std::size_t ring_stride(std::size_t capacity) {
  return (kRingHeaderBytes + capacity + 4095) / 4096 * 4096;
}
inline std::size_t segment_bytes(int world, std::size_t capacity) {
  return header_bytes(world) + static_cast<std::size_t>(world) * ring_stride(capacity);
}
inline Doorbell* doorbell_of(void* seg) {
  return static_cast<Doorbell*>(seg);
}
// The slots `sender` writes into this segment.
inline MailSlot* mail_of(void* seg, int sender) {
  return reinterpret_cast<MailSlot*>(static_cast<std::byte*>(seg) + 64) +
         static_cast<std::size_t>(sender) * kMailSlots;
}
inline RingHeader* ring_of(void* seg, int world, int sender, std::size_t capacity) {
  return reinterpret_cast<RingHeader*>(static_cast<std::byte*>(seg) + header_bytes(world) +
                                       static_cast<std::size_t>(sender) * ring_stride(capacity));
}
inline std::byte* ring_data(RingHeader* r) {
  return reinterpret_cast<std::byte*>(r) + kRingHeaderBytes;
}

// Rings the bell of the process that owns `d`.
void ring_bell(Doorbell* d);

}  // namespace hn::stack::comm::shm
