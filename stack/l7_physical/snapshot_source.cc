// The snapshot PhysicalSource: serves what was captured, unchanged, so probes
// judge a recorded node exactly as they would have judged it live.

#include "stack/l7_physical/source.h"

namespace hn::stack::physical {

namespace {

class SnapshotSource final : public PhysicalSource {
 public:
  explicit SnapshotSource(Inventory inventory) : inventory_(std::move(inventory)) {}

  std::vector<Link> links() const override { return inventory_.links; }
  RdmaInventory rdma() const override { return inventory_.rdma; }
  AcceleratorInventory accelerators() const override { return inventory_.accelerators; }
  CpuInfo cpu() const override { return inventory_.cpu; }
  MemoryInfo memory() const override { return inventory_.memory; }
  std::vector<ThermalSensor> thermal() const override { return inventory_.thermal; }

 private:
  Inventory inventory_;
};

}  // namespace

std::unique_ptr<PhysicalSource> make_snapshot_source(Inventory inventory) {
  return std::make_unique<SnapshotSource>(std::move(inventory));
}

}  // namespace hn::stack::physical
