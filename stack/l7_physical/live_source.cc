// The live PhysicalSource: a thin dispatcher over the readers in
// live_links.cc, live_rdma.cc and live_sysfs.cc.

#include "stack/l7_physical/live_readers.h"
#include "stack/l7_physical/source.h"

namespace hn::stack::physical {

namespace {

class LiveSource final : public PhysicalSource {
 public:
  explicit LiveSource(LiveRoots roots) : roots_(std::move(roots)) {}

  std::vector<Link> links() const override { return detail::read_links(roots_); }
  RdmaInventory rdma() const override { return detail::read_rdma(roots_); }
  AcceleratorInventory accelerators() const override { return detail::read_accelerators(roots_); }
  CpuInfo cpu() const override { return detail::read_cpu(roots_); }
  MemoryInfo memory() const override { return detail::read_memory(roots_); }
  std::vector<ThermalSensor> thermal() const override { return detail::read_thermal(roots_); }

 private:
  LiveRoots roots_;
};

}  // namespace

std::unique_ptr<PhysicalSource> make_live_source(LiveRoots roots) {
  return std::make_unique<LiveSource>(std::move(roots));
}

}  // namespace hn::stack::physical
