#pragma once
// The L7 source interface. Probes read hardware only through it, so the same
// checks run on the live kernel and on a captured snapshot (formats/snapshot.h).
//
// Contract: each call returns a fresh reading (live) or the captured one
// (snapshot); none blocks for long (netlink, sysfs, ibverbs queries only).
// Live reads throw SourceError when the kernel interface itself fails (e.g.
// the netlink socket cannot be opened); a missing optional file is not an
// error, the field is just absent. No RDMA support is not an error either:
// rdma().supported is false with the reason.

#include <memory>
#include <stdexcept>
#include <string>

#include "stack/l7_physical/inventory.h"

namespace hn::stack::physical {

class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PhysicalSource {
 public:
  virtual ~PhysicalSource() = default;
  virtual std::vector<Link> links() const = 0;
  virtual RdmaInventory rdma() const = 0;
  virtual AcceleratorInventory accelerators() const = 0;
  virtual CpuInfo cpu() const = 0;
  virtual MemoryInfo memory() const = 0;
  virtual std::vector<ThermalSensor> thermal() const = 0;

  Inventory read_all() const {
    return Inventory{links(), rdma(), accelerators(), cpu(), memory(), thermal()};
  }
};

// Reads the running kernel. Roots are parameters so that sysfs/procfs parsing
// can be tested on fixture trees; netlink and ibverbs always read the kernel.
struct LiveRoots {
  std::string sys = "/sys";
  std::string proc = "/proc";
  std::string dev = "/dev";
};
std::unique_ptr<PhysicalSource> make_live_source(LiveRoots roots = {});

// Serves a captured inventory.
std::unique_ptr<PhysicalSource> make_snapshot_source(Inventory inventory);

}  // namespace hn::stack::physical
