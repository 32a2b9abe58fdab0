#include "stack/l7_physical/cached_source.h"

#include "stack/l7_physical/once.h"

namespace hn::stack::physical {

namespace {

class CachedSource final : public PhysicalSource {
 public:
  explicit CachedSource(std::shared_ptr<const PhysicalSource> inner) : inner_(std::move(inner)) {}
  std::vector<Link> links() const override {
    return links_.get([&] { return inner_->links(); });
  }
  RdmaInventory rdma() const override {
    return rdma_.get([&] { return inner_->rdma(); });
  }
  AcceleratorInventory accelerators() const override {
    return accelerators_.get([&] { return inner_->accelerators(); });
  }
  CpuInfo cpu() const override {
    return cpu_.get([&] { return inner_->cpu(); });
  }
  MemoryInfo memory() const override {
    return memory_.get([&] { return inner_->memory(); });
  }
  std::vector<ThermalSensor> thermal() const override {
    return thermal_.get([&] { return inner_->thermal(); });
  }

 private:
  std::shared_ptr<const PhysicalSource> inner_;
  Once<std::vector<Link>> links_;
  Once<RdmaInventory> rdma_;
  Once<AcceleratorInventory> accelerators_;
  Once<CpuInfo> cpu_;
  Once<MemoryInfo> memory_;
  Once<std::vector<ThermalSensor>> thermal_;
};

}  // namespace

std::unique_ptr<PhysicalSource> make_cached_source(std::shared_ptr<const PhysicalSource> inner) {
  return std::make_unique<CachedSource>(std::move(inner));
}

}  // namespace hn::stack::physical
