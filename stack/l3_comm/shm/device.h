#pragma once
// Shared-memory device for ranks on one host. Each rank creates a memfd
// segment (its doorbell and one inbound ring per peer), publishes
// "pid fd size" in the store, and maps every peer's segment through
// /proc/<pid>/fd/<fd>. Pages are touched only when used, so rings that carry
// no traffic cost no memory.
//
// wait() spins briefly (longer when every rank has a core of its own), then
// sleeps on the rank's futex doorbell, which every producer and consumer
// rings; so 8 ranks on 2 cores make progress instead of burning their
// slices. interrupt() rings our own bell and makes every wait return.
//
// same_host_key() is what ranks compare to decide that shm can work between
// them (boot id, pid namespace, hostname).

#include <memory>
#include <string>

#include "stack/l3_comm/transport.h"

namespace hn::stack::comm::shm {

// Ring bytes per peer (bench/README.md "Tuning": measured). Every collective starts
// at the front of the ring (realignment), so small messages stay in cache
// whatever the size; deeper rings keep both sides busy on large ones, and
// oversubscribed ranks (more ranks than cores) need the deepest, since every
// refill may cost a trip through the scheduler.
inline constexpr std::size_t kDefaultRingBytes = 1u << 20;
inline constexpr std::size_t kOversubscribedRingBytes = 4u << 20;
inline constexpr std::size_t kPieceBytes = 256u << 10;  // publish granularity, capped at ring/4

std::string same_host_key();

// Throws LinkError naming the peer whose segment could not be mapped.
std::unique_ptr<Device> create_device(const DeviceSetup& setup);

}  // namespace hn::stack::comm::shm
