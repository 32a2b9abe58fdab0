#pragma once
// Per-NIC byte counters (L6's view of where traffic went): read before and
// after a collective, their difference says which NIC carried its bytes.
//
// The live source reads /sys/class/net/<nic>/statistics/{rx,tx}_bytes of the
// caller's network namespace (the kernel's own counters, updated per packet;
// they include Ethernet/IP/TCP headers, so a NIC carries a little more than
// the payload sent through it). A snapshot source serves fixed readings (a
// captured node's links), so the traffic analysis runs on fixtures too.
//
// Contract: read() returns promptly (sysfs attributes answer from kernel
// memory); a NIC that disappears between listing and reading is left out; it
// throws physical::SourceError only when the directory itself cannot be
// listed. Counters are 64-bit and never wrap in practice.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stack/l7_physical/inventory.h"

namespace hn::stack::netplane {

struct NicBytes {
  std::uint64_t rx = 0, tx = 0;
  bool operator==(const NicBytes&) const = default;
};

// NIC name -> counters, in name order.
using NicCounters = std::map<std::string, NicBytes>;

class NicCounterSource {
 public:
  virtual ~NicCounterSource() = default;
  virtual NicCounters read() const = 0;
};

std::unique_ptr<NicCounterSource> make_live_nic_counters(std::string sysfs_net = "/sys/class/net");
// Serves `fixed` on every read.
std::unique_ptr<NicCounterSource> make_snapshot_nic_counters(NicCounters fixed);
// The counters a snapshot's links carry.
NicCounters nic_counters_from_links(const std::vector<physical::Link>& links);

// after - before per NIC present in both (a counter that went backwards, a
// NIC re-created, counts as 0); NICs only in `after` count from 0.
NicCounters counter_delta(const NicCounters& before, const NicCounters& after);

}  // namespace hn::stack::netplane
